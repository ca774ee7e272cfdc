from kbtools.cli import main

main(prog_name="kb")
