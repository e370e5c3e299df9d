"""`port` subcommands: one module each (see porting.cli.COMMANDS)."""
