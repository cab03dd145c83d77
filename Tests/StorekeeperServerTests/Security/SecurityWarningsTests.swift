import Foundation
import StorekeeperApps
import StorekeeperServer
import Testing

@Suite("Security: startup warnings")
struct SecurityWarningsTests {
    @Test("secrets readable by others, an open data directory and plaintext PostgreSQL are warned about; private files are not")
    func warnings() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sk-warn-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let manager = FileManager.default
        try manager.createDirectory(at: base, withIntermediateDirectories: true)
        let config = base.appendingPathComponent("config.json").path
        let key = base.appendingPathComponent("key.p8").path
        let data = base.appendingPathComponent("data").path
        #expect(manager.createFile(atPath: config, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o644]))
        #expect(manager.createFile(atPath: key, contents: Data("k".utf8), attributes: [.posixPermissions: 0o644]))
        try manager.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        var app = AppConfiguration(id: "a", bundleId: "b", sharedSecret: "s")
        app.appStoreServerAPI = AppStoreAPISettings(issuerId: "i", keyId: "k", privateKeyPath: key, environment: "Sandbox")
        var configuration = ServerConfiguration(dataDirectory: data, apps: [app])
        let open = SecurityWarnings.of(configuration, configurationFile: config)
        #expect(open.count == 3, "\(open)")
        #expect(open.allSatisfy { !$0.contains("\"s\"") })

        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config)
        try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: data)
        #expect(SecurityWarnings.of(configuration, configurationFile: config).isEmpty)

        configuration.databaseURL = "postgres://u:secret@db.example.com/app?sslmode=disable"
        let plaintext = SecurityWarnings.of(configuration, configurationFile: config)
        #expect(plaintext.count == 1 && !plaintext[0].contains("secret"))
    }

    @Test("the state signing key and the TLS private key readable by others are warned about; 0600 ones are not")
    func privateKeys() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sk-warn-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let manager = FileManager.default
        try manager.createDirectory(atPath: base.path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let signing = base.appendingPathComponent("state-signing.pem").path
        let tlsKey = base.appendingPathComponent("tls-key.pem").path
        for path in [signing, tlsKey] {
            #expect(manager.createFile(atPath: path, contents: Data("k".utf8), attributes: [.posixPermissions: 0o644]))
        }
        var configuration = ServerConfiguration(dataDirectory: base.path, apps: [AppConfiguration(id: "a", bundleId: "b")])
        configuration.stateSigningKey = signing
        configuration.tls = TLSFiles(certificate: base.appendingPathComponent("tls-cert.pem").path, key: tlsKey)
        let open = SecurityWarnings.of(configuration, configurationFile: nil)
        #expect(open.count == 2 && open.contains { $0.contains("state signing key") } && open.contains { $0.contains("TLS private key") }, "\(open)")
        for path in [signing, tlsKey] { try manager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
        #expect(SecurityWarnings.of(configuration, configurationFile: nil).isEmpty)
    }
}
