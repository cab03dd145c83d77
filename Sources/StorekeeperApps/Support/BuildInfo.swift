import CBuildStamp

/// Which build of Storekeeper is running: `storekeeper --version` prints it and `/health`
/// answers it, so an operator can tell which binary a server runs.
///
/// A release build (`Scripts/release.sh`) stamps the version, the commit and the date into the
/// small C target `CBuildStamp`; any other build is a development build of ``baseVersion``.
public struct BuildInfo: Sendable, Equatable, CustomStringConvertible {
    /// The version being developed: the one place it is set. `Scripts/release.sh` reads it
    /// from this line and stamps it into the release.
    public static let baseVersion = "0.3.0"

    /// The release version (`0.3.0`), or ``baseVersion`` with `-dev` in a development build.
    public var version: String
    /// The git commit the binary was built from, or `unknown`.
    public var commit: String
    /// When the binary was built (ISO 8601, UTC), or `unknown`.
    public var built: String

    public init(version: String, commit: String, built: String) {
        self.version = version
        self.commit = commit
        self.built = built
    }

    /// This binary's build, as stamped.
    public static let current = BuildInfo(
        version: stamped(storekeeper_build_version()) ?? baseVersion + "-dev",
        commit: stamped(storekeeper_build_commit()) ?? "unknown",
        built: stamped(storekeeper_build_date()) ?? "unknown")

    /// `storekeeper 0.3.0 (commit 1d90fb2, built 2026-12-06T09:12:00Z)`.
    public var description: String {
        "storekeeper \(version) (commit \(commit), built \(built))"
    }

    /// A stamped value, or nil when the build left it empty.
    private static func stamped(_ value: UnsafePointer<CChar>) -> String? {
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
