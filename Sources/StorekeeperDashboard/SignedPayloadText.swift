import AppStoreJOSE
import Foundation

/// Stored signed data shown to a person: a JWS's payload decoded (its nested signed fields
/// too) as indented JSON, or a JSON body as it is. Nothing here verifies: what is shown was
/// verified when it was recorded.
package enum SignedPayloadText {
    /// Readable text of `raw`, or `nil` when it is neither a JWS nor JSON (a PKCS #7 receipt).
    package static func decode(_ raw: String, depth: Int = 0) -> String? {
        guard let object = jsonObject(raw, depth: depth) else { return nil }
        guard
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private static func jsonObject(_ raw: String, depth: Int) -> Any? {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{"), let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) {
            return expand(object, depth: depth)
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]).map({ Data($0) }),
            let object = try? JSONSerialization.jsonObject(with: payload)
        else {
            return nil
        }
        return expand(object, depth: depth)
    }

    /// Replaces fields holding a JWS (`signedTransactionInfo`, `signedRenewalInfo`,
    /// `signedPayload` …) by their decoded payloads, three levels deep at most.
    private static func expand(_ object: Any, depth: Int) -> Any {
        guard depth < 3 else { return object }
        if var dictionary = object as? [String: Any] {
            for (key, value) in dictionary {
                if key.hasPrefix("signed"), let text = value as? String, let decoded = jsonObject(text, depth: depth + 1) {
                    dictionary[key] = decoded
                } else if value is [String: Any] || value is [Any] {
                    dictionary[key] = expand(value, depth: depth + 1)
                }
            }
            return dictionary
        }
        if let array = object as? [Any] { return array.map { expand($0, depth: depth + 1) } }
        return object
    }
}
