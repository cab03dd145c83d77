import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import Crypto
import Foundation
import StorekeeperApps
import StorekeeperServer

/// What a local App Store keeps in its folder (`--ca DIR`) so that it signs with the same chain
/// and accepts the same key from one run to the next, and a server configuration trusting it:
///
/// - `root.der`, `intermediate.der`, `leaf.der` and their `*-key.pem`: the JWS chain;
/// - `api-key.pem` and `local-app-store.json`: the In-App Purchase key the App Store Server
///   API accepts, its issuer and key ids, and the app's ids and API keys;
/// - `storekeeper.json`: a configuration for `storekeeper serve` with one app, `local`,
///   trusting this simulator and calling its API.
///
/// The folder is `0700` and every file `0600` (``PrivateFiles``): the keys sign what the server
/// trusts, and the configuration holds the app's and the admin's API keys.
struct LocalAppStoreFiles: Sendable {
    struct Identity: Codable, Sendable {
        var issuerId: String
        var keyId: String
        var bundleId: String
        var appAppleId: Int64
        var appKey: String
        var adminKey: String
    }

    static let appId = "local"

    let directory: URL
    let authority: TestCertificateAuthority
    let apiKey: P256.Signing.PrivateKey
    let identity: Identity

    /// Reads the folder, or fills it on first use.
    static func open(_ directory: URL, bundleId: String?) throws -> LocalAppStoreFiles {
        try PrivateFiles.createDirectory(directory)
        for name in secretFileNames { PrivateFiles.restrict(directory.appendingPathComponent(name)) }
        let rootFile = directory.appendingPathComponent(TestCertificateAuthority.FileName.rootCertificate)
        let authority: TestCertificateAuthority
        if FileManager.default.fileExists(atPath: rootFile.path) {
            authority = try TestCertificateAuthority.load(from: directory)
        } else {
            let now = Date()
            authority = try TestCertificateAuthority.generate(
                notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(20 * 365 * 86_400))
            try authority.save(to: directory)
        }
        let keyFile = directory.appendingPathComponent("api-key.pem")
        let apiKey: P256.Signing.PrivateKey
        if let pem = try? String(contentsOf: keyFile, encoding: .utf8) {
            apiKey = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } else {
            apiKey = P256.Signing.PrivateKey()
            try PrivateFiles.write(Data(apiKey.pemRepresentation.utf8), to: keyFile)
        }
        let identityFile = directory.appendingPathComponent("local-app-store.json")
        var identity: Identity
        if let data = FileManager.default.contents(atPath: identityFile.path) {
            identity = try JSONDecoder().decode(Identity.self, from: data)
        } else {
            func random(_ prefix: String) -> String { prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }
            identity = Identity(
                issuerId: UUID().uuidString.lowercased(), keyId: String(random("").prefix(10)).uppercased(),
                bundleId: bundleId ?? "com.example.storekeeper.local", appAppleId: 1_234_567_891, appKey: random("sk_app_"),
                adminKey: random("sk_admin_"))
        }
        if let bundleId { identity.bundleId = bundleId }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try PrivateFiles.write(try encoder.encode(identity), to: identityFile)
        return LocalAppStoreFiles(directory: directory, authority: authority, apiKey: apiKey, identity: identity)
    }

    var serverConfigurationFile: URL { directory.appendingPathComponent("storekeeper.json") }

    /// A configuration for `storekeeper serve`: the app `local` trusting this simulator's root,
    /// with its catalog and the simulator's App Store Server API.
    func writeServerConfiguration(simulatorURL: String, products: [SimulatedProduct], environment: AppStoreEnvironment) throws {
        let app = AppConfiguration(
            id: Self.appId, bundleId: identity.bundleId, appAppleId: identity.appAppleId, environments: [environment],
            trustedRoots: [directory.appendingPathComponent(TestCertificateAuthority.FileName.rootCertificate).path],
            apiKeys: [APIKeyConfiguration(key: identity.appKey, role: .app), APIKeyConfiguration(key: identity.adminKey, role: .admin)],
            products: products.map(\.catalogProduct),
            appStoreServerAPI: AppStoreAPISettings(
                issuerId: identity.issuerId, keyId: identity.keyId, privateKey: apiKey.pemRepresentation,
                environment: environment == .sandbox ? "Sandbox" : "Production", baseURL: simulatorURL))
        let configuration = ServerConfiguration(
            host: "127.0.0.1", port: 8080, dataDirectory: directory.appendingPathComponent("server-data").path, apps: [app])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try PrivateFiles.write(try encoder.encode(configuration), to: serverConfigurationFile)
    }

    /// The files an earlier version may have left readable by others.
    static let secretFileNames = [
        TestCertificateAuthority.FileName.rootKey, TestCertificateAuthority.FileName.intermediateKey, TestCertificateAuthority.FileName.leafKey,
        "api-key.pem", "local-app-store.json", "storekeeper.json",
    ]
}
