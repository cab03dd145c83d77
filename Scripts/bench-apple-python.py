"""Measures Apple's own Python verifier (app-store-server-library) on the same input as
`storekeeper bench jws`, as the same-run baseline recorded in BENCHMARKS.md.

usage: python bench-apple-python.py FILE ROOT.der BUNDLE_ID ENVIRONMENT [SECONDS]
FILE holds one compact JWS (a transaction) per line. Prints {"operations", "seconds",
"perSecond", "failures"} like the Swift benchmark. Offline mode (no OCSP), strict checks on:
the library's defaults.
"""
import json
import sys
import time

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException


def main() -> None:
    path, root_path, bundle_id, environment = sys.argv[1:5]
    minimum = float(sys.argv[5]) if len(sys.argv) > 5 else 2.0
    with open(path) as handle:
        lines = [line.strip() for line in handle if line.strip()]
    with open(root_path, "rb") as handle:
        root = handle.read()
    verifier = SignedDataVerifier([root], False, Environment(environment), bundle_id, None)
    operations = failures = 0
    start = time.perf_counter()
    while time.perf_counter() - start < minimum:
        for line in lines:
            try:
                verifier.verify_and_decode_signed_transaction(line)
            except VerificationException:
                failures += 1
            operations += 1
    seconds = time.perf_counter() - start
    print(json.dumps({"operations": operations, "seconds": round(seconds, 3),
                      "perSecond": round(operations / seconds), "failures": failures}))


if __name__ == "__main__":
    main()
