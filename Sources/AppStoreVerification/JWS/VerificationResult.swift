/// The outcome of verifying a piece of signed data: the decoded payload, or why it was refused.
///
/// Verification never throws for bad input; a forged or misdirected JWS is `.invalid`.
public enum VerificationResult<Payload: Sendable>: Sendable {
    /// The signature, certificate chain and identifiers all check out.
    case valid(Payload)
    /// The data must not be trusted, for the given reason.
    case invalid(VerificationFailure)

    /// The payload when valid, `nil` otherwise.
    public var payload: Payload? {
        if case .valid(let payload) = self { return payload }
        return nil
    }

    /// The failure when invalid, `nil` otherwise.
    public var failure: VerificationFailure? {
        if case .invalid(let failure) = self { return failure }
        return nil
    }

    /// Whether the data was accepted.
    public var isValid: Bool { payload != nil }

    /// Transforms a valid payload, keeping a failure as is.
    public func map<Other: Sendable>(_ transform: (Payload) throws(VerificationFailure) -> Other) -> VerificationResult<Other> {
        switch self {
        case .valid(let payload):
            do {
                return .valid(try transform(payload))
            } catch {
                return .invalid(error)
            }
        case .invalid(let failure):
            return .invalid(failure)
        }
    }
}

extension VerificationResult: Equatable where Payload: Equatable {}
extension VerificationResult: Hashable where Payload: Hashable {}
