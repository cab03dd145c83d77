import AppStoreTestSigning
import Foundation
import Testing

@testable import StorekeeperCLI

@Suite("Local tools write their secrets 0600 in 0700 folders")
struct PrivateFilesTests {
    func mode(_ url: URL) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber).intValue & 0o777
    }

    @Test("simulator serve's folder: the CA's keys, the In-App Purchase key, its identity and the server configuration are 0600 in a 0700 folder")
    func simulatorFolder() throws {
        let base = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let directory = base.appendingPathComponent("nested/local-app-store")
        let files = try LocalAppStoreFiles.open(directory, bundleId: nil)
        try files.writeServerConfiguration(simulatorURL: "http://127.0.0.1:9090", products: [], environment: .sandbox)
        #expect(try mode(directory) == 0o700)
        #expect(try mode(base.appendingPathComponent("nested")) == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        for name in LocalAppStoreFiles.secretFileNames {
            #expect(names.contains(name))
        }
        for name in names {
            #expect(try mode(directory.appendingPathComponent(name)) == 0o600, "\(name)")
        }
        let configuration = try String(contentsOf: files.serverConfigurationFile, encoding: .utf8)
        #expect(configuration.contains(files.identity.adminKey))

        // A folder an earlier version left open is closed when the simulator opens it again.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        for name in LocalAppStoreFiles.secretFileNames {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory.appendingPathComponent(name).path)
        }
        _ = try LocalAppStoreFiles.open(directory, bundleId: nil)
        #expect(try mode(directory) == 0o700)
        for name in LocalAppStoreFiles.secretFileNames {
            #expect(try mode(directory.appendingPathComponent(name)) == 0o600, "\(name)")
        }
    }

    @Test("the demo's folder is 0700; a saved certificate authority is 0600 files in a 0700 folder")
    func demoAndAuthority() throws {
        let base = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: base) }
        let demo = base.appendingPathComponent("demo-data")
        let world = try DemoWorld(
            settings: DemoSettings(
                check: true, customers: 1, days: 1, dropRate: 0, duplicateRate: 0, seed: 1, dataDirectory: demo.path, port: 0, stepHours: 1,
                quiet: true))
        #expect(world.directory.standardizedFileURL == demo.standardizedFileURL)
        #expect(try mode(demo) == 0o700)

        let ca = base.appendingPathComponent("ca")
        let now = Date()
        try TestCertificateAuthority.generate(notBefore: now, notAfter: now.addingTimeInterval(86_400)).save(to: ca)
        #expect(try mode(ca) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: ca.path) {
            #expect(try mode(ca.appendingPathComponent(name)) == 0o600, "\(name)")
        }
        #expect(try TestCertificateAuthority.load(from: ca).rootCertificateDER.isEmpty == false)
    }
}
