import Foundation

/// The server's routes the SDK calls, over the configured transport.
struct ServerClient: Sendable {
    let configuration: StorekeeperConfiguration
    let transport: any StorekeeperTransport

    struct ErrorBody: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
        }
        var error: Detail
    }

    /// `/v1/apps/{appId}/…` with each segment percent-encoded.
    func url(_ segments: [String], query: [URLQueryItem] = []) throws -> URL {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        let base =
            configuration.serverURL.absoluteString.hasSuffix("/")
            ? String(configuration.serverURL.absoluteString.dropLast()) : configuration.serverURL.absoluteString
        let path = (["v1", "apps", configuration.appId] + segments).map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }
        guard var components = URLComponents(string: base + "/" + path.joined(separator: "/")) else {
            throw StorekeeperError(.configuration, "cannot make a URL from \(base)")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw StorekeeperError(.configuration, "cannot make a URL from \(base)") }
        return url
    }

    /// Sends a request; a 2xx answer's body, or a ``StorekeeperError`` (`server`) with the
    /// server's status and error code.
    func call(
        _ method: String, _ segments: [String], query: [URLQueryItem] = [], body: (some Encodable)? = Optional<[String: String]>.none
    ) async throws -> Data {
        var headers = ["Authorization": "Bearer \(configuration.apiKey)", "Accept": "application/json"]
        var data: Data?
        if let body {
            headers["Content-Type"] = "application/json"
            data = try JSONEncoder().encode(body)
        }
        let request = TransportRequest(method: method, url: try url(segments, query: query), headers: headers, body: data)
        let response = try await transport.send(request, timeout: configuration.requestTimeout)
        guard (200..<300).contains(response.status) else {
            let detail = try? JSONDecoder().decode(ErrorBody.self, from: response.body)
            throw StorekeeperError(
                .server, detail?.error.message ?? "HTTP \(response.status)", status: response.status, serverCode: detail?.error.code)
        }
        return response.body
    }

    func decode<Value: Decodable>(_ type: Value.Type, _ data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw StorekeeperError(.invalidAnswer, "the server's answer is not a \(Value.self): \(error)")
        }
    }
}
