import sys

from colosseum.cli.main import main

sys.exit(main())
