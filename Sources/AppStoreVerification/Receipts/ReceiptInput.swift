import AppStoreJOSE
import AppStoreModels
import Foundation

/// What a blob handed in as a receipt actually is, decided from its bytes alone.
///
/// Apps and servers pass receipts as raw DER or as base64 text (with or without line breaks);
/// attackers and broken clients pass JSON, iOS 6 transaction receipts, or base64 of a bare
/// product id (seed 004's cracker receipts). Classification is cheap and never throws.
enum ReceiptInput: Equatable {
    /// A PKCS#7 candidate (starts with a SEQUENCE tag), binary.
    case pkcs7([UInt8])
    /// An iOS 6 transaction receipt: an old-style plist `{ "signature" = …; "purchase-info" = …; }`.
    case transactionReceipt(String)
    /// JSON text (for example a whole `verifyReceipt` request body).
    case json
    case empty
    case tooLarge
    /// Anything else; the associated text says what it looked like.
    case unrecognized(String)

    static func classify(_ data: Data) -> ReceiptInput {
        guard !data.isEmpty else { return .empty }
        guard data.count <= AppReceipt.maximumSize else { return .tooLarge }
        // A DER/BER SEQUENCE of more than 127 bytes: long-form or indefinite length byte.
        if data.first == 0x30, data.count > 1, data[data.startIndex + 1] >= 0x80 { return .pkcs7(Array(data)) }
        guard let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            !text.isEmpty
        else { return data.first == 0x30 ? .pkcs7(Array(data)) : .unrecognized("binary data that is not PKCS#7") }
        if let kind = classifyText(text) { return kind }
        let compact = text.filter { !$0.isWhitespace }
        guard let decoded = decodeBase64(compact), !decoded.isEmpty else {
            if data.first == 0x30 { return .pkcs7(Array(data)) }
            return .unrecognized("text that is neither base64 nor a receipt")
        }
        if decoded.first == 0x30 { return .pkcs7(Array(decoded)) }
        if let decodedText = String(data: decoded, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines) {
            if let kind = classifyText(decodedText) { return kind }
            if decodedText.allSatisfy({ $0.isASCII && !$0.isNewline }) {
                return .unrecognized("base64 of plain text (\"\(decodedText.prefix(40))\"), not a receipt")
            }
        }
        return .unrecognized("base64 of data that is not PKCS#7")
    }

    private static func classifyText(_ text: String) -> ReceiptInput? {
        guard text.first == "{" || text.first == "[" else { return nil }
        if text.contains("\"purchase-info\"") || text.contains("\"signature\" =") {
            return .transactionReceipt(text)
        }
        if (try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil { return .json }
        return .unrecognized("text in braces that is neither JSON nor a receipt")
    }

    /// Standard or URL-safe base64, padding optional (apps send receipts every way), decoded
    /// with the package's one codec.
    static func decodeBase64(_ text: String) -> Data? {
        guard !text.isEmpty else { return nil }
        return Base64URL.decodeEitherAlphabet(text).map { Data($0) }
    }
}
