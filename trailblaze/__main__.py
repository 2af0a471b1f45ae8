from trailblaze.cli import main

main()
