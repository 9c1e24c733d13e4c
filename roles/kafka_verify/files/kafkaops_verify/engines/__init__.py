"""The two ways the verifier runs its checks, with the same results: scan (the default) and sql."""
