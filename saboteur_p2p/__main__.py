"""`python -m saboteur_p2p` is the saboteur-p2p command."""
import sys

from .cli import main

sys.exit(main())
