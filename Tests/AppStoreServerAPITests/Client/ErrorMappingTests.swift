import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import Testing

@Suite("Apple's error responses become typed errors")
struct ErrorMappingTests {
    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var fixture: String
        var status: Int
        var code: APIErrorCode
        var message: String
        var retryable: Bool
        var testDescription: String { fixture }
    }

    static let cases: [ErrorCase] = [
        ErrorCase(fixture: "apiException", status: 500, code: .generalInternal, message: "An unknown error occurred.", retryable: true),
        ErrorCase(fixture: "apiTooManyRequestsException", status: 429, code: .rateLimitExceeded, message: "Rate limit exceeded.", retryable: true),
        ErrorCase(fixture: "apiUnknownError", status: 400, code: APIErrorCode(rawValue: 9990000), message: "Testing error.", retryable: false),
        ErrorCase(
            fixture: "appTransactionDoesNotExistError", status: 404, code: .appTransactionDoesNotExistError,
            message: "No AppTransaction exists for the customer.", retryable: false),
        ErrorCase(
            fixture: "familyTransactionNotSupportedError", status: 400, code: .familyTransactionNotSupported,
            message: "Invalid request. Family Sharing transactions aren't supported by this endpoint.", retryable: false),
        ErrorCase(
            fixture: "invalidAppAccountTokenUUIDError", status: 400, code: .invalidAppAccountTokenUUID,
            message: "Invalid request. The app account token field must be a valid UUID.", retryable: false),
        ErrorCase(
            fixture: "invalidTransactionIdError", status: 400, code: .invalidTransactionId, message: "Invalid transaction id.", retryable: false),
        ErrorCase(
            fixture: "transactionIdNotFoundError", status: 404, code: .transactionIdNotFound, message: "Transaction id not found.", retryable: false),
        ErrorCase(
            fixture: "transactionIdNotOriginalTransactionId", status: 400, code: .transactionIdNotOriginalTransactionId,
            message: "Invalid request. The transaction ID provided is not an original transaction ID.", retryable: false),
    ]

    @Test("each error fixture maps to its code, status and message", arguments: cases)
    func mapsFixture(_ errorCase: ErrorCase) async throws {
        let harness = try ClientHarness(retryPolicy: .none)
        await harness.transport.expect(
            "GET", "/inApps/v1/transactions/1", respond: .json(errorCase.status, data: try Fixture.model(errorCase.fixture)))
        let error = try await #require(throws: AppStoreServerAPIError.self) {
            _ = try await harness.client.getTransactionInfo(transactionId: "1")
        }
        #expect(error.code == .apiError)
        #expect(error.apiErrorCode == errorCase.code)
        #expect(error.apiErrorCode?.rawValue == errorCase.code.rawValue)
        #expect(error.httpStatus == errorCase.status)
        #expect(error.message.hasSuffix(errorCase.message))
        #expect(error.isRetryable == errorCase.retryable)
        #expect(error.attempts == 1)
    }

    @Test("every documented code keeps its identity, and Apple's retryable codes are retryable", arguments: APIErrorCode.known)
    func everyCode(_ code: APIErrorCode) async throws {
        let harness = try ClientHarness(retryPolicy: .none)
        let body = #"{"errorCode":\#(code.rawValue),"errorMessage":"m"}"#
        await harness.transport.expect("GET", "/inApps/v1/transactions/1", respond: .json(code.httpStatus, body))
        let error = try await #require(throws: AppStoreServerAPIError.self) {
            _ = try await harness.client.getTransactionInfo(transactionId: "1")
        }
        #expect(error.apiErrorCode == code)
        #expect(error.httpStatus == code.httpStatus)
        #expect(error.isRetryable == (code.isRetryable || code.httpStatus >= 500))
    }

    @Test("an error status without a JSON body still reports the status")
    func bareStatus() async throws {
        let harness = try ClientHarness(retryPolicy: .none)
        await harness.transport.expect("GET", "/inApps/v1/transactions/1", respond: HTTPResponseValue(status: 401, body: Data("Unauthorized".utf8)))
        let error = try await #require(throws: AppStoreServerAPIError.self) {
            _ = try await harness.client.getTransactionInfo(transactionId: "1")
        }
        #expect(error.httpStatus == 401)
        #expect(error.apiErrorCode == nil)
        #expect(!error.isRetryable)
    }
}
