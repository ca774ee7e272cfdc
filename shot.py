import sys
sys.path.insert(0, "tests")
from tests.test_serve_phone import *  # noqa
