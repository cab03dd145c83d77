import Foundation

/// One request to send: the endpoint, its path (segments escaped), query and body.
struct APICall: Sendable {
    var endpoint: APIEndpoint
    var path: String
    var query: [URLQueryItem] = []
    var body: Data?
    var contentType: String = "application/json"

    /// Characters left as they are inside one path segment.
    private static let segmentAllowed: CharacterSet = {
        var set = CharacterSet.urlPathAllowed
        set.remove(charactersIn: "/;?#%")
        return set
    }()

    /// Escapes a value (a transaction id, product id, locale…) for use as one path segment.
    static func segment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? value
    }

    /// A call whose body is `value` as JSON.
    static func json(
        _ endpoint: APIEndpoint, _ path: String, query: [URLQueryItem] = [], body value: some Encodable
    ) throws(AppStoreServerAPIError) -> APICall {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return APICall(endpoint: endpoint, path: path, query: query, body: try encoder.encode(value))
        } catch {
            throw AppStoreServerAPIError(.invalidRequest, "cannot encode the \(endpoint.name) body: \(error)")
        }
    }
}
