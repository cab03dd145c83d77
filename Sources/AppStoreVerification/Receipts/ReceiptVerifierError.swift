/// A configuration error of ``ReceiptVerifier`` (an unreadable root certificate).
///
/// Receipts never cause this error: bad receipts are ``ReceiptValidationResult/invalid(status:reason:)``.
public struct ReceiptVerifierError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let name: String

        /// A configured root certificate is not a readable DER X.509 certificate.
        public static let invalidRootCertificate = Code(name: "invalidRootCertificate")
        /// No root certificate was configured.
        public static let noRootCertificates = Code(name: "noRootCertificates")

        public var description: String { name }
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
