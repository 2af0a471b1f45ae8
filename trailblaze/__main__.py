from trailblaze.cli.main import main

main()
