#!/usr/bin/env bash
# Creates (once) a throwaway virtual environment holding Apple's App Store Server Library for
# Python — the reference verifier the interop tests cross-check against — and the generated
# RevenueCat REST API v2 client (whose models the v2 routes must satisfy), and prints the path
# of its interpreter on stdout. Idempotent and safe to run concurrently; an environment made
# before the RevenueCat client was added gets it on the next run.
#
#   STOREKEEPER_INTEROP_VENV   where the environment lives (default: .build/interop-venv)
#   APPLE_LIBRARY_VERSION      the PyPI version to install (default 3.1.2)
#   REVENUECAT_CLIENT_VERSION  the PyPI version of revenuecat-client (default 2.0.0)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
exec bash "$here/Scripts/python-venv.sh" "${STOREKEEPER_INTEROP_VENV:-$here/.build/interop-venv}" \
  "app-store-server-library==${APPLE_LIBRARY_VERSION:-3.1.2}" appstoreserverlibrary \
  "revenuecat-client==${REVENUECAT_CLIENT_VERSION:-2.0.0}" revenuecat_client
