from kbtools.cli import main

if __name__ == "__main__":  # not when a spawned worker process imports it (embed/parallel)
    main(prog_name="kb")
