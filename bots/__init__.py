"""Bots bundled with saboteur-p2p (installed as the package ``saboteur_bots``)."""
