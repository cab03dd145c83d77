import AppStoreModels
import Foundation

/// Verifies and decodes the data the App Store signs (transactions, renewal infos, server
/// notifications V2, app transactions) with exactly the rules of Apple's App Store Server
/// Library, and much faster.
///
/// A compact JWS is accepted when its `alg` is ES256, its `x5c` header holds exactly three
/// certificates, the first two chain to one of the configured roots (the third is ignored)
/// with Apple's marker extensions, every certificate of that chain is valid at the payload's
/// `signedDate` (`receiptCreationDate` for app transactions; `now` when absent or in online
/// mode), the leaf's P-256 key verifies the signature, and the payload belongs to the configured
/// app and environment. For the `Xcode` and `LocalTesting` environments, which Apple does not
/// sign, only the payload checks apply, as in Apple's library.
///
/// Verified chains are cached (bounded, least recently used evicted) and shared by copies of a
/// verifier, so a chain already seen costs one date comparison and one ECDSA verification.
/// Failures are values: see ``VerificationResult`` and ``VerificationFailure``.
public struct SignedDataVerifier: Sendable {
    /// The bundle id every payload must carry.
    public let bundleId: String

    /// The app's Apple id, checked on notifications and app transactions in production.
    public let appAppleId: Int64?

    /// The environment every payload must belong to.
    public let environment: AppStoreEnvironment

    /// Online revocation checking, when enabled.
    public let onlineChecks: OnlineChecks?

    /// Tuning and strictness.
    public let options: Options

    let chainValidator: ChainValidator
    let headerCache: BoundedCache<HeaderCacheKey, VerifiedChain>
    let chainCache: BoundedCache<ChainCacheKey, VerifiedChain>

    /// Creates a verifier for one app in one environment.
    ///
    /// - Parameters:
    ///   - rootCertificates: DER certificates to trust as chain roots; Apple Root CA - G3 by
    ///     default. An empty list makes every signed JWS fail with `invalid_certificate` (as in
    ///     Apple's library), which suits `Xcode`/`LocalTesting` verifiers.
    ///   - appAppleId: required in production.
    ///   - onlineChecks: OCSP revocation checking; `nil` (offline) by default.
    /// - Throws: ``ConfigurationError`` for production without `appAppleId` or a root that is
    ///   not a DER certificate.
    public init(
        rootCertificates: [Data] = [AppleRootCertificates.appleRootCAG3],
        bundleId: String,
        appAppleId: Int64?,
        environment: AppStoreEnvironment,
        onlineChecks: OnlineChecks? = nil,
        options: Options = Options()
    ) throws(ConfigurationError) {
        if environment == .production, appAppleId == nil {
            throw ConfigurationError(code: .missingAppAppleId, message: "appAppleId is required when the environment is Production")
        }
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.onlineChecks = onlineChecks
        self.options = options
        chainValidator = try ChainValidator(rootCertificates: rootCertificates, strict: options.strictCertificateChecks)
        headerCache = BoundedCache(capacity: options.chainCacheCapacity)
        chainCache = BoundedCache(capacity: options.chainCacheCapacity)
    }

    /// How strictly certificates are judged, and how many verified chains are remembered.
    public struct Options: Sendable {
        /// Enforce the RFC 5280 certificate profile OpenSSL applies with `X509_STRICT`, as
        /// Apple's Python verifier does by default (critical basic constraints and key usage on
        /// CAs, subject and authority key identifiers, …). Apple's own test certificates lack
        /// key identifiers, so Apple's test suite turns this off; real Apple chains pass it.
        public var strictCertificateChecks: Bool

        /// How many verified chains (and, separately, JWS headers) are cached.
        public var chainCacheCapacity: Int

        public init(strictCertificateChecks: Bool = true, chainCacheCapacity: Int = 64) {
            self.strictCertificateChecks = strictCertificateChecks
            self.chainCacheCapacity = chainCacheCapacity
        }
    }

    /// A verifier that cannot be built as asked.
    public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
        public var code: Code
        public var message: String

        public init(code: Code, message: String) {
            self.code = code
            self.message = message
        }

        public struct Code: RawRepresentable, Hashable, Sendable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            /// Production verification needs the app's Apple id.
            public static let missingAppAppleId = Code(rawValue: "missing_app_apple_id")
            /// A configured root certificate is not a DER X.509 certificate.
            public static let invalidRootCertificate = Code(rawValue: "invalid_root_certificate")
        }

        public var description: String { "\(code.rawValue): \(message)" }
    }

    /// How many verified chains are cached right now (for tests and metrics).
    public var cachedChainCount: Int { chainCache.count }

    /// Whether payloads are accepted without a signature check (`Xcode`, `LocalTesting`).
    var skipsSignatureVerification: Bool {
        environment == .xcode || environment == .localTesting
    }
}
