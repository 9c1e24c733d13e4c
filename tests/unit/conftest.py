"""Make the collection importable as ansible_collections.kafkaops.cluster without installing it."""

import os
import sys

COLLECTIONS_ROOT = os.path.join(os.path.dirname(__file__), "..", "..", ".cache", "collections")
sys.path.insert(0, os.path.abspath(COLLECTIONS_ROOT))
