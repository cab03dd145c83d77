import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore

extension TestClientProtocol {
    /// Sends a request and returns its status and JSON body (an empty object when none).
    func call(
        _ method: HTTPRequest.Method, _ uri: String, key: String? = nil, body: String? = nil
    ) async throws -> (status: Int, json: [String: Any], text: String) {
        var headers = HTTPFields()
        if let key { headers[.authorization] = "Bearer \(key)" }
        headers[.contentType] = "application/json"
        let response = try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        let text = String(buffer: response.body)
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return (Int(response.status.code), json, text)
    }

    /// The subscription's status through the API, or `nil` when it answers 404.
    func status(_ app: String, _ chain: String, key: String) async throws -> String? {
        let response = try await call(.get, "/v1/apps/\(app)/subscriptions/\(chain)", key: key)
        return response.status == 200 ? response.json["status"] as? String : nil
    }
}
