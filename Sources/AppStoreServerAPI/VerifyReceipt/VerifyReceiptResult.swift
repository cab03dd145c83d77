import AppStoreModels

/// The outcome of a `verifyReceipt` call: the verdict, Apple's final response and how it was
/// obtained.
public struct VerifyReceiptResult: Hashable, Sendable {
    /// What the final status means.
    public var verdict: VerifyReceiptVerdict
    /// Apple's final response.
    public var response: VerifyReceiptResponse
    /// The environment whose endpoint gave the final response.
    public var environment: AppStoreEnvironment
    /// The environments asked, in order (production, then sandbox after a 21007).
    public var route: [AppStoreEnvironment]
    /// HTTP requests sent in all.
    public var attempts: Int

    public init(
        verdict: VerifyReceiptVerdict, response: VerifyReceiptResponse, environment: AppStoreEnvironment,
        route: [AppStoreEnvironment], attempts: Int
    ) {
        self.verdict = verdict
        self.response = response
        self.environment = environment
        self.route = route
        self.attempts = attempts
    }
}
