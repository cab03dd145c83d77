/// The body of an App Store Server API error response: `{"errorCode": …, "errorMessage": …}`.
public struct ErrorPayload: Codable, Hashable, Sendable {
    /// The error code; unknown codes keep their number.
    public var errorCode: APIErrorCode?

    /// Apple's description of the error.
    public var errorMessage: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(errorCode: APIErrorCode? = nil, errorMessage: String? = nil) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }
}
