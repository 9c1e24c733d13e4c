"""NAME=VALUE command-line pairs, the form the jobs take client settings in (--kafka-option, --client-option)."""


def add_pairs_option(parser, flag, help_text):
    """Declares a repeatable NAME=VALUE option on an argparse parser; read it with parse_options or
    parse_client_options."""
    parser.add_argument(flag, action="append", default=[], metavar="NAME=VALUE", help=help_text + "; repeatable")


def parse_options(pairs, what):
    """NAME=VALUE command-line pairs (repeatable options such as --kafka-option) as a dict of strings."""
    options = {}
    for pair in pairs or ():
        name, separator, value = pair.partition("=")
        if not separator or not name:
            raise SystemExit("%s must be NAME=VALUE, not %r" % (what, pair))
        options[name] = value
    return options


def parse_client_options(pairs, what="--client-option"):
    """Like parse_options, for kafka-python settings: those are typed, and numbers arrive as text."""
    return {name: int(value) if value.lstrip("-").isdigit() else value
            for name, value in parse_options(pairs, what).items()}
