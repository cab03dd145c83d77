import Foundation
import HTTPTypes
import Hummingbird
import StorekeeperStore

/// An error as RevenueCat's backend answers its SDK: `{"code": <backend error code>,
/// "message": "…"}` with an HTTP status the SDK reads the same way (4xx: the request was
/// wrong, a purchase is finished; 5xx: try again, compute entitlements offline), and for
/// attribute failures `attribute_errors: [{key_name, message}]` (the SDK's `ErrorResponse`).
package struct RevenueCatSDKError: Error, HTTPResponseError, Sendable {
    package var status: HTTPResponse.Status
    package var code: Code
    package var message: String
    /// Attributes refused, by key (sent as `attribute_errors`).
    package var attributeErrors: [(key: String, message: String)] = []

    package init(_ status: HTTPResponse.Status, code: Code, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// RevenueCat's backend error codes the SDK knows (`BackendErrorCode` in purchases-ios):
    /// an open set of integers.
    package struct Code: RawRepresentable, Hashable, Sendable {
        package var rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }

        /// A chain the purchase belongs to is another customer's (`receiptAlreadyInUseError`).
        package static let cannotTransferPurchase = Code(rawValue: 7102)
        /// The receipt or signed transaction does not verify or is refused (`invalidReceiptError`).
        package static let invalidReceiptToken = Code(rawValue: 7103)
        /// The server failed or its database is unavailable (`unknownBackendError`).
        package static let internalServerError = Code(rawValue: 7110)
        /// The app user id is empty (`invalidAppUserIdError`).
        package static let emptyAppUserId = Code(rawValue: 7220)
        /// No valid SDK key (`invalidCredentialsError`).
        package static let invalidAPIKey = Code(rawValue: 7225)
        /// The request is malformed, or asks for what Storekeeper does not serve.
        package static let badRequest = Code(rawValue: 7226)
        /// The customer may not redeem the promotional offer (`ineligibleError`).
        package static let userIneligibleForPromoOffer = Code(rawValue: 7232)
        /// The app has no In-App Purchase key to sign offers with (`invalidAppleSubscriptionKeyError`).
        package static let invalidAppleSubscriptionKey = Code(rawValue: 7234)
        /// The new app user id is another customer's alias (`configurationError`).
        package static let couldNotCreateAlias = Code(rawValue: 7255)
        /// The app user id is too long or holds control characters (`invalidAppUserIdError`).
        package static let invalidAppUserId = Code(rawValue: 7256)
        /// Some attributes were refused (`invalidSubscriberAttributesError`).
        package static let invalidSubscriberAttributes = Code(rawValue: 7263)
        /// The attributes body is malformed (`invalidSubscriberAttributesError`).
        package static let invalidSubscriberAttributesBody = Code(rawValue: 7264)
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var object: [String: Any] = ["code": code.rawValue, "message": message]
        if !attributeErrors.isEmpty {
            object["attribute_errors"] = attributeErrors.map { ["key_name": $0.key, "message": $0.message] }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var response = JSONBody.response(status: status, json: ByteBuffer(data: data))
        if status == .serviceUnavailable || status == .tooManyRequests { response.headers[.retryAfter] = "5" }
        return response
    }

    package static let invalidCredentials = RevenueCatSDKError(
        .unauthorized, code: .invalidAPIKey, message: "Invalid API Key: send one of the app's RevenueCat SDK keys as Authorization: Bearer <key>")

    package static func badRequest(_ message: String) -> RevenueCatSDKError { RevenueCatSDKError(.badRequest, code: .badRequest, message: message) }

    /// What a route RevenueCat serves and Storekeeper does not answers.
    package static func notServed(_ feature: String) -> RevenueCatSDKError {
        RevenueCatSDKError(.notFound, code: .badRequest, message: "Storekeeper does not serve \(feature) (RevenueCat-only feature)")
    }

    /// Storekeeper's own API error, as RevenueCat's SDK reads errors: the same status and
    /// message, RevenueCat's code for the case.
    package init(_ error: APIError) {
        let code: Code =
            switch (error.status.code, error.code) {
            case (_, .transactionBelongsToAnotherCustomer), (_, .appAccountTokenNotIssued): .cannotTransferPurchase
            case (_, .invalidReceipt), (_, .refusedReceipt), (_, .invalidTransaction), (_, .refusedTransaction), (_, .unknownTransaction):
                .invalidReceiptToken
            case (_, .notEligible): .userIneligibleForPromoOffer
            case (_, .noAppStoreCredentials): .invalidAppleSubscriptionKey
            case (401, _), (403, _): .invalidAPIKey
            case (500..<600, _): .internalServerError
            default: .badRequest
            }
        self.init(error.status, code: code, message: error.message)
    }
}

/// Answers every failure of the RevenueCat SDK routes in RevenueCat's shape
/// (``RevenueCatSDKError``): the API's own errors mapped to RevenueCat's codes, Hummingbird's
/// with their status, a database outage as a 503 the SDK retries, anything else a 500 whose
/// details go only to the log.
package struct RevenueCatSDKErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as RevenueCatSDKError {
            return try error.response(from: request, context: context)
        } catch let error as APIError {
            return try RevenueCatSDKError(error).response(from: request, context: context)
        } catch let error as StoreError where error.code == .unavailable {
            context.logger.warning(
                "database unavailable", metadata: ["route": "\(context.endpointPath ?? "unmatched")", "error": "\(error.message)"])
            return try RevenueCatSDKError(.serviceUnavailable, code: .internalServerError, message: "the database is unavailable; try again shortly")
                .response(from: request, context: context)
        } catch let error as HTTPResponseError {
            let message = error.status.code == 413 ? "the request body is larger than the server accepts" : error.status.reasonPhrase
            let code: RevenueCatSDKError.Code = error.status.code >= 500 ? .internalServerError : .badRequest
            return try RevenueCatSDKError(error.status, code: code, message: message).response(from: request, context: context)
        } catch {
            context.logger.error(
                "request failed", metadata: ["route": "\(context.endpointPath ?? "unmatched")", "error": "\(String(describing: error).prefix(300))"])
            return try RevenueCatSDKError(.internalServerError, code: .internalServerError, message: "the server could not complete the request")
                .response(from: request, context: context)
        }
    }
}
