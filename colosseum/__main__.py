import sys

from colosseum.cli import main

sys.exit(main())
