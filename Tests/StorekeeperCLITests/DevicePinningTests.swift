import AppStoreTestSigning
import Foundation
import StorekeeperKit
import StorekeeperTestSupport
import Testing

@testable import StorekeeperCLI

/// `storekeeper device` pins through StorekeeperKit's transport: a man in the middle in front of
/// `storekeeper serve` that presents its own certificate followed by the genuine one is refused.
@Suite("storekeeper device against a man in the middle", .serialized)
struct DevicePinningTests {
    static func pem(_ der: Data) -> String {
        let text = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(text)\n-----END CERTIFICATE-----\n"
    }

    @Test("a server presenting its own certificate followed by the pinned one: the device refuses with a clear message and exit 1")
    func manInTheMiddle() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try LocalAppStoreFiles.open(directory.appendingPathComponent("local-app-store"), bundleId: nil)
        try files.writeServerConfiguration(simulatorURL: "http://127.0.0.1:9", products: [], environment: .sandbox)
        let now = Date()
        let genuine = try TestCertificateAuthority.generate(notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(86_400))
        let mallory = try TestCertificateAuthority.generate(notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(86_400))
        let chain = directory.appendingPathComponent("chain.pem")
        let key = directory.appendingPathComponent("mallory-key.pem")
        try Data((Self.pem(mallory.leafCertificateDER) + Self.pem(genuine.leafCertificateDER)).utf8).write(to: chain)
        try PrivateFiles.write(Data(mallory.leafKey.pemRepresentation.utf8), to: key)

        let port = LoopbackPort.free()
        let server = try DeviceCommandTests.Background(
            ["serve", "--config", files.serverConfigurationFile.path, "--port", "\(port)", "--tls-certificate", chain.path, "--tls-key", key.path],
            log: directory.appendingPathComponent("server.log"))
        defer { server.stop() }
        #expect(await server.wait(for: "listening on"), "the server did not start: \(server.output)")
        func customerInfo(pin: Data) async throws -> StorekeeperProcess.Output {
            let pin = try #require(CertificatePins.pin(certificateDER: Array(pin)))
            return try await StorekeeperProcess.run(
                [
                    "device", "customer-info", "--server", "https://127.0.0.1:\(port)", "--api-key", files.identity.appKey,
                    "--customer", "alice", "--pin", pin, "--state-dir", directory.appendingPathComponent("device-\(UUID().uuidString)").path,
                    "--timeout", "30",
                ], timeout: 120)
        }
        let refused = try await customerInfo(pin: genuine.leafCertificateDER)
        #expect(refused.exitCode == 1, "\(refused.text) \(refused.standardError)")
        #expect(refused.standardError.contains("does not lead to a pinned public key; nothing was sent"), "\(refused.standardError)")
        #expect(refused.standardOutput.isEmpty)
    }
}
