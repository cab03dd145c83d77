import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StorekeeperStore

/// An error the API answers with: an HTTP status and `{"error": {"code", "message"}}`.
///
/// Messages describe the request's problem and never echo secrets.
public struct APIError: Error, HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String

    public init(_ status: HTTPResponse.Status, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONBody.response(status: status, value: ErrorBody(error: .init(code: code, message: message)))
        if status == .serviceUnavailable || status == .tooManyRequests { response.headers[.retryAfter] = "5" }
        return response
    }

    struct ErrorBody: Codable {
        struct Detail: Codable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    static let unauthorized = APIError(.unauthorized, code: "unauthorized", message: "a valid API key is required: Authorization: Bearer <key>")
    static let notFound = APIError(.notFound, code: "not_found", message: "no such resource")
    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, code: "bad_request", message: message) }
    /// 503: try again later (sent with `Retry-After`).
    static func retryLater(_ message: String) -> APIError { APIError(.serviceUnavailable, code: "unavailable", message: message) }
}

/// JSON bodies of responses.
enum JSONBody {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
        return encoder
    }

    static func response(status: HTTPResponse.Status = .ok, value: some Encodable) -> Response {
        let data = (try? encoder().encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Decodes a request body; any failure is a 400 naming what was wrong.
    static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
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
