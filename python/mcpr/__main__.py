from ._find import main

if __name__ == "__main__":
    main()
