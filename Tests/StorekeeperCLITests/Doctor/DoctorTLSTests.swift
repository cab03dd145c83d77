import AppStoreTestSigning
import Foundation
import StorekeeperTestSupport
import Testing

/// `storekeeper doctor`'s checks of the TLS files and the listening address, on files made here
/// (no network): each broken pair gives its finding, with what to do, and the right exit code.
@Suite("storekeeper doctor: TLS files and plain HTTP")
struct DoctorTLSTests {
    /// A chain made here: a CA and a leaf, valid from yesterday for `leafDays` days from now.
    static func authority(leafDays: Double = 365) throws -> TestCertificateAuthority {
        let now = Date()
        return try TestCertificateAuthority.generate(
            notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(3 * 365 * 86_400),
            leafNotBefore: now.addingTimeInterval(-86_400), leafNotAfter: now.addingTimeInterval(leafDays * 86_400))
    }

    /// PEM text of DER certificates, in order.
    static func pem(_ certificates: [Data]) -> String {
        certificates.map { der in
            let base64 = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            return "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        }.joined()
    }

    /// Runs doctor on a configuration with no app behind `host` and these TLS files (the
    /// configuration's own missing app is an error of its own, which the assertions leave aside).
    static func doctor(certificate: String?, key: String?, host: String = "127.0.0.1", in directory: URL) async throws -> DoctorRun {
        var object: [String: Any] = ["host": host, "dataDirectory": directory.appendingPathComponent("data").path]
        if let certificate, let key { object["tls"] = ["certificate": certificate, "key": key] }
        let path = try DoctorConfiguration.write(object, named: "tls-\(UUID().uuidString)", in: directory)
        return try await DoctorRun.run(["--config", path])
    }

    /// Writes `text` to `directory/name` (mode 0600) and returns its path.
    static func file(_ text: String, _ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        return url.path
    }

    @Test("a matching, valid pair passes; expired, expiring, mismatched, misordered and missing files are findings")
    func tlsFiles() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try Self.authority()
        let goodChain = try Self.file(Self.pem([good.leafCertificateDER, good.intermediateCertificateDER]), "chain.pem", in: directory)
        let goodKey = try Self.file(good.leafKey.pemRepresentation, "key.pem", in: directory)

        let valid = try await Self.doctor(certificate: goodChain, key: goodKey, in: directory)
        #expect(valid.has("tls_valid", "ok") && valid.codes("warning").isEmpty, "\(valid)")
        #expect(valid.codes("error") == ["no_apps"] && valid.exitCode == 1, "\(valid)")

        let expired = try Self.authority(leafDays: -1)
        let expiredChain = try Self.file(Self.pem([expired.leafCertificateDER, expired.intermediateCertificateDER]), "expired.pem", in: directory)
        let expiredKey = try Self.file(expired.leafKey.pemRepresentation, "expired-key.pem", in: directory)
        let expiredRun = try await Self.doctor(certificate: expiredChain, key: expiredKey, in: directory)
        #expect(expiredRun.has("tls_certificate_expired", "error"), "\(expiredRun)")

        let soon = try Self.authority(leafDays: 10)
        let soonChain = try Self.file(Self.pem([soon.leafCertificateDER, soon.intermediateCertificateDER]), "soon.pem", in: directory)
        let soonKey = try Self.file(soon.leafKey.pemRepresentation, "soon-key.pem", in: directory)
        let soonRun = try await Self.doctor(certificate: soonChain, key: soonKey, in: directory)
        #expect(soonRun.has("tls_certificate_expires_soon", "warning"), "\(soonRun)")

        let mismatched = try await Self.doctor(certificate: goodChain, key: soonKey, in: directory)
        #expect(mismatched.has("tls_key_mismatch", "error"), "\(mismatched)")

        let misordered = try Self.file(Self.pem([good.intermediateCertificateDER, good.leafCertificateDER]), "misordered.pem", in: directory)
        let misorderedRun = try await Self.doctor(certificate: misordered, key: goodKey, in: directory)
        #expect(misorderedRun.has("tls_chain_order", "error"), "\(misorderedRun)")

        let missing = try await Self.doctor(certificate: directory.appendingPathComponent("none.pem").path, key: goodKey, in: directory)
        #expect(missing.has("tls_file_missing", "error"), "\(missing)")

        let notPEM = try Self.file("not a certificate", "garbage.pem", in: directory)
        let unreadable = try await Self.doctor(certificate: notPEM, key: goodKey, in: directory)
        #expect(unreadable.has("tls_certificate_unreadable", "error"), "\(unreadable)")

        // A key others can read: the chmod to run.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: goodKey)
        let openKey = try await Self.doctor(certificate: goodChain, key: goodKey, in: directory)
        #expect(openKey.has("file_readable_by_others", "warning"), "\(openKey)")
    }

    @Test("a self-signed certificate while an app accepts Production is a warning")
    func selfSignedForProduction() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let authority = try Self.authority()
        let certificate = try Self.file(Self.pem([authority.rootCertificateDER]), "self-signed.pem", in: directory)
        let key = try Self.file(authority.rootKey.pemRepresentation, "self-signed-key.pem", in: directory)
        let configuration: [String: Any] = [
            "dataDirectory": directory.appendingPathComponent("data").path, "tls": ["certificate": certificate, "key": key],
            "apps": [["id": "shop", "bundleId": "com.example.shop", "environments": ["Production"], "appAppleId": 1]],
        ]
        let run = try await DoctorRun.run(["--config", try DoctorConfiguration.write(configuration, named: "self-signed", in: directory)])
        #expect(run.has("tls_self_signed", "warning") && run.exitCode == 0, "\(run)")
    }

    @Test("plain HTTP on an address other than loopback is a warning; on loopback it is not")
    func plainHTTP() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: StorekeeperProcess.executable.path), "build the storekeeper product first")
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let open = try await Self.doctor(certificate: nil, key: nil, host: "0.0.0.0", in: directory)
        #expect(open.has("plain_http", "warning"), "\(open)")
        let loopback = try await Self.doctor(certificate: nil, key: nil, in: directory)
        #expect(loopback.findings("plain_http").isEmpty, "\(loopback)")
    }
}
