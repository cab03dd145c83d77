#ifndef CBUILDSTAMP_H
#define CBUILDSTAMP_H

/// What a release build stamps into the binary: the version, the git commit and the build date.
///
/// The values live in C so that stamping a build recompiles one small file, not a Swift module:
/// `Scripts/release.sh` writes `BuildStamp.generated.h` beside `BuildStamp.c`, builds, and
/// removes it again. Without that header (every ordinary `swift build`) the answers are empty
/// strings and `BuildInfo` reports a development build.

/// The release version (`0.3.0`), or "" in a development build.
const char *storekeeper_build_version(void);

/// The git commit the binary was built from (abbreviated), or "" in a development build.
const char *storekeeper_build_commit(void);

/// When the binary was built, ISO 8601 in UTC (`2026-12-06T09:12:00Z`), or "" in a development
/// build.
const char *storekeeper_build_date(void);

#endif
