import AppStoreModels
import AppStoreVerification
import ArgumentParser
import Foundation

/// The options every command that verifies JWS shares: what to expect and what to trust.
struct VerifierOptions: ParsableArguments {
    @Option(help: "The kind of signed data: transaction, renewal, notification or app-transaction.")
    var type: SignedDataKind

    @Option(name: .customLong("root"), help: "A trusted root certificate (DER file). Repeatable. Default: Apple Root CA - G3.")
    var roots: [String] = []

    @Option(help: "The app's bundle id the data must carry.")
    var bundleId: String

    @Option(help: "The environment the data must belong to: Sandbox, Production, Xcode or LocalTesting.")
    var environment: String

    @Option(help: "The app's Apple id (required for Production).")
    var appAppleId: Int64?

    @Option(help: "Verify as of this instant (ISO 8601) instead of now; used when the payload has no signedDate.")
    var at: String?

    @Flag(help: "Skip the RFC 5280 profile checks OpenSSL's X509_STRICT applies (Apple's own test certificates need this).")
    var noStrict = false

    func makeVerifier() throws(CLIFailure) -> SignedDataVerifier {
        var rootCertificates: [Data] = []
        for path in roots {
            rootCertificates.append(try InputFile.read(path))
        }
        if roots.isEmpty {
            rootCertificates = [AppleRootCertificates.appleRootCAG3]
        }
        do {
            return try SignedDataVerifier(
                rootCertificates: rootCertificates,
                bundleId: bundleId,
                appAppleId: appAppleId,
                environment: AppStoreEnvironment(rawValue: environment),
                options: .init(strictCertificateChecks: !noStrict)
            )
        } catch {
            throw .usage(error.description)
        }
    }

    func instant() throws(CLIFailure) -> Date {
        guard let at else { return Date() }
        guard let date = try? Date(at, strategy: .iso8601) else {
            throw .usage("--at \(at) is not an ISO 8601 date-time such as 2026-01-31T12:00:00Z")
        }
        return date
    }
}
