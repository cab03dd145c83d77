import Foundation
import StorekeeperStore

/// What `storekeeper serve` warns about at startup: secrets other users of the machine can
/// read, a data directory they can enter, and a database connection that may be plaintext.
public enum SecurityWarnings {
    /// The warnings for `configuration`, read from `configurationFile` when there is one.
    public static func of(_ configuration: ServerConfiguration, configurationFile: String?) -> [String] {
        var warnings: [String] = []
        let holdsSecrets = configuration.apps.contains {
            $0.sharedSecret != nil || !$0.apiKeys.isEmpty || $0.appStoreServerAPI?.privateKey != nil
        }
        if let file = configurationFile, holdsSecrets, let mode = permissions(of: file), mode & 0o077 != 0 {
            warnings.append(
                "the configuration file \(file) holds secrets and is readable by other users (mode \(octal(mode))); chmod 600 it")
        }
        for app in configuration.apps {
            if let path = app.appStoreServerAPI?.privateKeyPath, let mode = permissions(of: path), mode & 0o077 != 0 {
                warnings.append("app \(app.id): the In-App Purchase key \(path) is readable by other users (mode \(octal(mode))); chmod 600 it")
            }
        }
        let privateKeys = [("the state signing key", configuration.stateSigningKey), ("the TLS private key", configuration.tls?.key)]
        for case let (name, path?) in privateKeys {
            if let mode = permissions(of: path), mode & 0o077 != 0 {
                warnings.append("\(name) \(path) is readable by other users (mode \(octal(mode))); chmod 600 it")
            }
        }
        if configuration.databaseURL == nil, let mode = permissions(of: configuration.dataDirectory), mode & 0o077 != 0 {
            warnings.append(
                "the data directory \(configuration.dataDirectory) is open to other users (mode \(octal(mode))); chmod 700 it")
        }
        if let location = try? DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory) {
            warnings += location.warnings
        }
        return warnings
    }

    /// The permission bits of a file, or `nil` when it cannot be read.
    package static func permissions(of path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
    }

    package static func octal(_ mode: Int) -> String { "0" + String(mode & 0o777, radix: 8) }
}
