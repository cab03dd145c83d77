import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Crypto
import Foundation
import SubscriptionEngine
import Synchronization

/// One configured app, ready to serve: its verifiers (one per accepted environment, trusting
/// Apple's roots and the configured test roots), its receipt verifier and its catalog.
public struct AppRuntime: Sendable {
    public let configuration: AppConfiguration
    public let catalog: Catalog
    /// Verifiers by environment, in the configured order.
    package let verifiers: [(environment: AppStoreEnvironment, verifier: SignedDataVerifier)]
    package let receiptVerifier: ReceiptVerifier
    /// The key customer tokens of this app are signed with (`nil` when the app has neither
    /// API keys nor a token secret).
    package let customerTokenKey: SymmetricKey?
    /// The In-App Purchase key, read once at startup (offer signatures, API tokens).
    package let signingKey: InAppPurchaseKey?

    /// The webhooks added through the admin API, as last read.
    package let storedWebhooks = WebhookBook()
    /// Whether this process opened the app's wrong-shared-secret problem (so a right answer
    /// resolves it, and repeats do not write).
    package let sharedSecretProblem = ProcessFlag()

    public var id: String { configuration.id }

    public init(configuration: AppConfiguration) throws {
        self.configuration = configuration
        catalog = configuration.catalog
        var roots = [AppleRootCertificates.appleRootCAG3]
        for path in configuration.trustedRoots {
            roots.append(try Self.loadCertificate(path: path, app: configuration.id))
        }
        var verifiers: [(AppStoreEnvironment, SignedDataVerifier)] = []
        for environment in configuration.environments {
            do {
                let verifier = try SignedDataVerifier(
                    rootCertificates: roots, bundleId: configuration.bundleId, appAppleId: configuration.appAppleId,
                    environment: environment)
                verifiers.append((environment, verifier))
            } catch {
                throw ConfigurationError("app \(configuration.id): \(error)")
            }
        }
        self.verifiers = verifiers
        customerTokenKey = CustomerTokenKey.of(configuration)
        signingKey = try configuration.appStoreServerAPI?.key(app: configuration.id)
        do {
            receiptVerifier = try ReceiptVerifier(rootCertificates: [AppleRootCertificates.appleIncRoot] + roots.dropFirst())
        } catch {
            throw ConfigurationError("app \(configuration.id): \(error)")
        }
    }

    /// Apple's roots built in, by name (DER): what the expiry metric watches beside the
    /// configured ones.
    package static let builtInRoots = [("AppleRootCA-G3", AppleRootCertificates.appleRootCAG3), ("AppleIncRoot", AppleRootCertificates.appleIncRoot)]

    /// Reads a DER or PEM certificate file.
    package static func loadCertificate(path: String, app: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("app \(app): cannot read trusted root \(path)")
        }
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") {
            let body = text.components(separatedBy: .newlines).filter { !$0.hasPrefix("-----") }.joined()
            guard let der = Data(base64Encoded: body) else { throw ConfigurationError("app \(app): \(path) is not a PEM certificate") }
            return der
        }
        return data
    }

    /// Whether the app accepts data from `environment`.
    package func accepts(_ environment: AppStoreEnvironment) -> Bool {
        verifiers.contains { $0.environment == environment }
    }

    /// Verifies with each environment's verifier; the first success wins. A failure is
    /// reported from the verifier of the environment the data claims, when there is one.
    /// With `signedOnly`, the unsigned environments' verifiers (Xcode, LocalTesting) are not
    /// tried: data that reaches the server from the internet must be signed.
    package func verify<T: Sendable>(
        signedOnly: Bool = false, _ attempt: (SignedDataVerifier) async -> VerificationResult<T>
    ) async -> VerificationResult<T> {
        var firstFailure: VerificationFailure?
        for (environment, verifier) in verifiers where !signedOnly || environment.isSigned {
            switch await attempt(verifier) {
            case .valid(let payload): return .valid(payload)
            case .invalid(let failure):
                if firstFailure == nil || firstFailure?.reason == .invalidEnvironment { firstFailure = failure }
            }
        }
        return .invalid(firstFailure ?? VerificationFailure(reason: .invalidEnvironment, message: "the app accepts no environment"))
    }
}

extension AppStoreEnvironment {
    /// Whether this environment's data is signed by Apple (Sandbox, Production); Xcode and
    /// LocalTesting data is not, and Apple's verifier only decodes it.
    package var isSigned: Bool { self != .xcode && self != .localTesting }
}

/// A flag shared by every copy of an app's runtime in this process.
package final class ProcessFlag: Sendable {
    private let value = Mutex(false)

    /// Sets the flag; returns whether it was already set.
    package func set() -> Bool {
        value.withLock { old in
            defer { old = true }
            return old
        }
    }

    /// Clears the flag; returns whether it was set.
    package func clear() -> Bool {
        value.withLock { old in
            defer { old = false }
            return old
        }
    }
}
