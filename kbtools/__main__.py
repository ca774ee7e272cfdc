from kbtools.cli import main

main()
