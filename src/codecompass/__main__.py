from codecompass.cli import main

main()
