import AppStoreServerAPI
import Crypto
import Foundation
import StorekeeperApps
import StorekeeperStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Doctor {
    /// The secrets' file modes and owners, the data directory, and the database warnings the
    /// server logs at start (``SecurityWarnings`` says the same at `serve`; here each file is a
    /// typed finding with the command to run).
    func fileFindings() -> [DoctorFinding] {
        var secrets: [(app: String?, name: String, path: String)] = []
        // As at `serve`: the configuration file matters when it holds secrets.
        let holdsSecrets = configuration.apps.contains {
            $0.sharedSecret != nil || !$0.apiKeys.isEmpty || $0.appStoreServerAPI?.privateKey != nil || $0.customerTokenSecret != nil
        }
        if let configurationFile, holdsSecrets { secrets.append((nil, "the configuration file", configurationFile)) }
        for app in configuration.apps {
            if let path = app.appStoreServerAPI?.privateKeyPath { secrets.append((app.id, "the In-App Purchase key", path)) }
        }
        if let path = configuration.stateSigningKey { secrets.append((nil, "the state signing key", path)) }
        if let path = configuration.tls?.key { secrets.append((nil, "the TLS private key", path)) }
        var findings: [DoctorFinding] = []
        for secret in secrets {
            findings += permissionFindings(app: secret.app, name: secret.name, path: secret.path)
        }
        findings += dataDirectoryFindings()
        if let location = try? DatabaseLocation.resolve(databaseURL: configuration.databaseURL, dataDirectory: configuration.dataDirectory) {
            for warning in location.warnings {
                findings.append(
                    .warning(
                        .securityWarning, app: nil, warning,
                        todo: "Add sslmode=verify-full (or require) to the database URL so its traffic cannot be read on the way."))
            }
        }
        return findings
    }

    /// A secret readable by others (the `chmod 600` to run) or owned by another user.
    func permissionFindings(app: String?, name: String, path: String) -> [DoctorFinding] {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return [] }
        var findings: [DoctorFinding] = []
        if let mode = SecurityWarnings.permissions(of: path), mode & 0o077 != 0 {
            findings.append(
                .warning(
                    .fileReadableByOthers, app: app,
                    "\(name) \(path) can be read by other users of this machine (mode \(SecurityWarnings.octal(mode)))",
                    todo: "Run `chmod 600 \(path)`."))
        }
        if let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value, owner != getuid() {
            findings.append(
                .warning(
                    .fileOwnedByOtherUser, app: app, "\(name) \(path) belongs to user \(owner), not to the user running this check (\(getuid()))",
                    todo: "Run `chown \(getuid()) \(path)` (as root), or run the server as the file's owner."))
        }
        return findings
    }

    /// Whether the server can write its SQLite database where the configuration says.
    func dataDirectoryFindings() -> [DoctorFinding] {
        guard configuration.databaseURL == nil else { return [] }
        let directory = configuration.dataDirectory
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, access(directory, W_OK | X_OK) == 0 else {
                return [
                    .error(
                        .dataDirectoryNotWritable, app: nil, "the data directory \(directory) is not a folder this user can write",
                        todo:
                            "Run `chown -R $(id -u) \(directory) && chmod 700 \(directory)`, or set dataDirectory to a folder the server's user owns."
                    )
                ]
            }
            return []
        }
        let parent = URL(fileURLWithPath: directory).deletingLastPathComponent().path
        guard access(parent, W_OK | X_OK) == 0 else {
            return [
                .error(
                    .dataDirectoryNotWritable, app: nil,
                    "the data directory \(directory) does not exist and \(parent) cannot be written to create it",
                    todo: "Run `mkdir -m 700 \(directory)` as a user who may, then `chown` it to the server's user.")
            ]
        }
        return []
    }

    /// The app's In-App Purchase key, or the findings that say why it cannot be used.
    func readKey(_ settings: AppStoreAPISettings, app: String) -> (InAppPurchaseKey?, [DoctorFinding]) {
        let pem: String
        let source: String
        if let path = settings.privateKeyPath {
            source = path
            guard FileManager.default.fileExists(atPath: path) else {
                return (
                    nil,
                    [
                        .error(
                            .keyFileMissing, app: app, "the In-App Purchase key file \(path) does not exist",
                            todo: "Put the .p8 downloaded from App Store Connect (key id \(settings.keyId)) at \(path), or fix privateKeyPath.")
                    ]
                )
            }
            guard FileManager.default.isReadableFile(atPath: path), let data = FileManager.default.contents(atPath: path) else {
                return (
                    nil,
                    [
                        .error(
                            .keyFileUnreadable, app: app, "the In-App Purchase key file \(path) cannot be read by this user",
                            todo: "Run `chmod 600 \(path)` and `chown` it to the user that runs the server.")
                    ]
                )
            }
            pem = String(decoding: data, as: UTF8.self)
        } else if let inline = settings.privateKey {
            source = "appStoreServerAPI.privateKey"
            pem = inline
        } else {
            return (
                nil,
                [
                    .error(
                        .keyFileMissing, app: app, "appStoreServerAPI has neither privateKeyPath nor privateKey",
                        todo: "Set privateKeyPath to the .p8 file of key id \(settings.keyId).")
                ]
            )
        }
        if let privateKey = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            return (InAppPurchaseKey(keyId: settings.keyId, privateKey: privateKey), [.ok(.keyValid, app: app, "\(source) is a P-256 private key")])
        }
        let otherCurve =
            (try? P384.Signing.PrivateKey(pemRepresentation: pem)).map { _ in "P-384" }
            ?? (try? P521.Signing.PrivateKey(pemRepresentation: pem)).map { _ in "P-521" }
        if let otherCurve {
            return (
                nil,
                [
                    .error(
                        .keyWrongCurve, app: app, "\(source) is a \(otherCurve) key; App Store Connect's In-App Purchase keys are P-256",
                        todo: "Use the .p8 App Store Connect gave for key id \(settings.keyId) (Users and Access › Integrations › In-App Purchase).")
                ]
            )
        }
        return (
            nil,
            [
                .error(
                    .keyNotAKey, app: app, "\(source) is not a PEM private key",
                    todo:
                        "Point privateKeyPath at the .p8 file downloaded for key id \(settings.keyId), unchanged (it begins with -----BEGIN PRIVATE KEY-----)."
                )
            ]
        )
    }
}
