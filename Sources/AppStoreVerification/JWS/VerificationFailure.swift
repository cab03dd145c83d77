/// Why a piece of signed data was not accepted, with a human-readable explanation.
///
/// Returned inside ``VerificationResult/invalid(_:)``: a forged, expired or misdirected JWS is an
/// expected outcome, not an error, so it is a value. ``reason`` follows the statuses of Apple's
/// App Store Server Library (Python `VerificationStatus`), so verdicts compare one to one.
public struct VerificationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable status, named like Apple's.
    public var reason: Reason

    /// What exactly went wrong, for logs and support; not meant to be parsed.
    public var message: String

    public init(reason: Reason, message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }

    /// A verification status, as an open set: statuses added later keep their raw value.
    ///
    /// The raw values are the lower-case names of Apple's Python `VerificationStatus` cases.
    public struct Reason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The data is malformed, its signature or certificate chain does not verify, or the
        /// chain lacks Apple's marker extensions.
        public static let verificationFailure = Reason(rawValue: "verification_failure")
        /// The bundle id (or, in production, the app Apple id) is not the configured one.
        public static let invalidAppIdentifier = Reason(rawValue: "invalid_app_identifier")
        /// An x5c certificate cannot be decoded, or no root certificate is configured.
        public static let invalidCertificate = Reason(rawValue: "invalid_certificate")
        /// The x5c header does not hold exactly three certificates.
        public static let invalidChainLength = Reason(rawValue: "invalid_chain_length")
        /// The certificate chain is invalid (kept for parity with Apple's statuses; Apple's
        /// Python verifier reports chain problems as ``verificationFailure``, and so do we).
        public static let invalidChain = Reason(rawValue: "invalid_chain")
        /// The data belongs to another environment than the configured one.
        public static let invalidEnvironment = Reason(rawValue: "invalid_environment")
        /// An online revocation check could not be completed; trying again later may succeed.
        public static let retryableVerificationFailure = Reason(rawValue: "retryable_verification_failure")

        /// Every status Apple defines, in Apple's order.
        public static let known: [Reason] = [
            .verificationFailure, .invalidAppIdentifier, .invalidCertificate, .invalidChainLength,
            .invalidChain, .invalidEnvironment, .retryableVerificationFailure,
        ]

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }
    }
}

extension VerificationFailure {
    static func verificationFailure(_ message: String) -> VerificationFailure {
        VerificationFailure(reason: .verificationFailure, message: message)
    }

    static func invalidCertificate(_ message: String) -> VerificationFailure {
        VerificationFailure(reason: .invalidCertificate, message: message)
    }
}
