import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore

/// An error the API answers with: an HTTP status and `{"error": {"code", "message"}}`.
///
/// Messages describe the request's problem and never echo secrets.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: Code
    public var message: String
    /// The seconds of `Retry-After` (5 when a 429 or 503 names none).
    public var retryAfter: Int?

    public init(_ status: HTTPResponse.Status, code: Code, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONBody.response(status: status, value: ErrorBody(error: .init(code: code.rawValue, message: message)))
        if let retryAfter {
            response.headers[.retryAfter] = "\(retryAfter)"
        } else if status == .serviceUnavailable || status == .tooManyRequests {
            response.headers[.retryAfter] = "5"
        }
        return response
    }

    /// The stable, machine-readable name of an error. An open set: clients should treat an
    /// unknown code by its HTTP status.
    public struct Code: OpenStringValue {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Apple answered a call the request needed with an error (502).
        public static let appStoreError: Code = "app_store_error"
        /// The app account token was not issued to the customer the request is for (409).
        public static let appAccountTokenNotIssued: Code = "app_account_token_not_issued"
        /// The request is malformed: its body, a parameter or a header (400).
        public static let badRequest: Code = "bad_request"
        /// The database cannot be reached now; retry after `Retry-After` (503).
        public static let databaseUnavailable: Code = "database_unavailable"
        /// The destination is defined in the configuration file, not through the API (409).
        public static let definedInConfiguration: Code = "defined_in_configuration"
        /// The key is valid but not allowed this (an app key on an admin route, a customer token on another customer) (403).
        public static let forbidden: Code = "forbidden"
        /// The server failed; the cause is in its log, never in the answer (500).
        public static let internalError: Code = "internal_error"
        /// The receipt does not verify (422).
        public static let invalidReceipt: Code = "invalid_receipt"
        /// The signed transaction does not verify or lacks its ids or dates (422).
        public static let invalidTransaction: Code = "invalid_transaction"
        /// The route exists, not with this method (405).
        public static let methodNotAllowed: Code = "method_not_allowed"
        /// The app has no App Store Server API key configured (409).
        public static let noAppStoreCredentials: Code = "no_app_store_credentials"
        /// Customer tokens need `customerTokenSecret` (409).
        public static let noTokenKey: Code = "no_token_key"
        /// The customer cannot take the offer (409).
        public static let notEligible: Code = "not_eligible"
        /// Only a failed notification can be retried (409).
        public static let notFailed: Code = "not_failed"
        /// The offerings document refers to what does not exist or splits traffic wrongly (422).
        public static let invalidOfferings: Code = "invalid_offerings"
        /// Another change was saved since the version the request names (409).
        public static let versionConflict: Code = "version_conflict"
        /// No such route or resource (404).
        public static let notFound: Code = "not_found"
        /// The notification URL stores only what verifies; everything else gets this one answer (400).
        public static let notificationRefused: Code = "notification_refused"
        /// The Get Retention Message endpoint answers only fresh, first-time requests Apple signed
        /// for the app; everything else gets this one answer (400), and Apple shows the default
        /// message.
        public static let realtimeRequestRefused: Code = "realtime_request_refused"
        /// The body is larger than the route accepts (413).
        public static let payloadTooLarge: Code = "payload_too_large"
        /// The receipt verifies but is refused (another bundle, an environment the app does not accept) (422).
        public static let refusedReceipt: Code = "refused_receipt"
        /// The customer has as many open problem reports as the app accepts; wait until one is resolved (409).
        public static let tooManyOpenProblems: Code = "too_many_open_problems"
        /// The caller sent more requests than the route accepts for now; retry after `Retry-After` (429).
        public static let tooManyRequests: Code = "too_many_requests"
        /// The transaction verifies but is refused (bundle, environment, product outside the catalog) (422).
        public static let refusedTransaction: Code = "refused_transaction"
        /// The body did not arrive in time (408).
        public static let requestTimeout: Code = "request_timeout"
        /// The offer could not be signed with the app's key (500).
        public static let signingFailed: Code = "signing_failed"
        /// The purchase or its chain is linked to another customer of the app (409).
        public static let transactionBelongsToAnotherCustomer: Code = "transaction_belongs_to_another_customer"
        /// No valid key or token (401).
        public static let unauthorized: Code = "unauthorized"
        /// The server cannot do this now; retry after `Retry-After` (503).
        public static let unavailable: Code = "unavailable"
        /// The product is not in the app's catalog (422).
        public static let unknownProduct: Code = "unknown_product"
        /// The ledger does not know the transaction (422).
        public static let unknownTransaction: Code = "unknown_transaction"
    }

    package struct ErrorBody: Codable {
        package struct Detail: Codable {
            package var code: String
            package var message: String
        }
        package var error: Detail
    }

    package static let unauthorized = APIError(
        .unauthorized, code: .unauthorized, message: "a valid API key is required: Authorization: Bearer <key>")
    package static let notFound = APIError(.notFound, code: .notFound, message: "no such resource")
    package static func badRequest(_ message: String) -> APIError { APIError(.badRequest, code: .badRequest, message: message) }
    /// 503: try again later (sent with `Retry-After`).
    package static func retryLater(_ message: String) -> APIError { APIError(.serviceUnavailable, code: .unavailable, message: message) }
}

/// JSON bodies of responses.
package enum JSONBody {
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .timestamp
        return encoder
    }

    package static func response(status: HTTPResponse.Status = .ok, value: some Encodable) -> Response {
        response(status: status, json: ByteBuffer(bytes: (try? encoder().encode(value)) ?? Data("{}".utf8)))
    }

    /// A response whose body is JSON text already written.
    package static func response(status: HTTPResponse.Status = .ok, json: ByteBuffer) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: json))
    }

    /// Decodes a request body; any failure is a 400 naming what was wrong.
    package static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = Timestamp.date(from: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected an ISO 8601 date"))
            }
            return date
        }
        let data = Data(buffer: buffer)
        if let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]), NotificationAdmission.containsNUL(object) {
            throw APIError.badRequest("strings in the body may not contain U+0000")
        }
        do {
            return try decoder.decode(type, from: data)
        } catch {
            throw APIError.badRequest("the body is not valid JSON of the expected shape: \(ConfigurationError.describe(error))")
        }
    }
}
