import Foundation

/// Base64url without padding (RFC 7515 §2), as compact JWS uses it.
enum Base64URL {
    static func encode(_ bytes: some DataProtocol) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url with or without padding; `nil` for anything else.
    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.count % 4 {
        case 2: base64 += "=="
        case 3: base64 += "="
        case 1: return nil
        default: break
        }
        return Data(base64Encoded: base64)
    }
}
