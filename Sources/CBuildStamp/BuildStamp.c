#include "BuildStamp.h"

// Written by Scripts/release.sh for a stamped build only (gitignored): it defines
// STOREKEEPER_BUILD_VERSION, STOREKEEPER_BUILD_COMMIT and STOREKEEPER_BUILD_DATE as string literals.
#if __has_include("BuildStamp.generated.h")
#include "BuildStamp.generated.h"
#endif

#ifndef STOREKEEPER_BUILD_VERSION
#define STOREKEEPER_BUILD_VERSION ""
#endif
#ifndef STOREKEEPER_BUILD_COMMIT
#define STOREKEEPER_BUILD_COMMIT ""
#endif
#ifndef STOREKEEPER_BUILD_DATE
#define STOREKEEPER_BUILD_DATE ""
#endif

const char *storekeeper_build_version(void) { return STOREKEEPER_BUILD_VERSION; }

const char *storekeeper_build_commit(void) { return STOREKEEPER_BUILD_COMMIT; }

const char *storekeeper_build_date(void) { return STOREKEEPER_BUILD_DATE; }
