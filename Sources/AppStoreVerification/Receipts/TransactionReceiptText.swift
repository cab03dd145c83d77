import Foundation

/// The fields of an iOS 6 transaction receipt: an old-style (NeXTSTEP) plist of quoted
/// `"key" = "value";` pairs whose `purchase-info` is base64 of another such plist.
///
/// Read only to pre-filter (bundle id, product id); the signature inside is not verified.
struct TransactionReceiptText {
    /// The outer pairs (`signature`, `purchase-info`, `environment`, `pod`, `signing-status`).
    let fields: [String: String]
    /// The decoded `purchase-info` pairs (`bid`, `product-id`, `transaction-id`, …).
    let purchaseInfo: [String: String]

    init?(_ text: String) {
        let outer = Self.pairs(text)
        guard let encoded = outer["purchase-info"], let decoded = ReceiptInput.decodeBase64(encoded),
            let inner = String(data: decoded, encoding: .utf8)
        else { return nil }
        fields = outer
        purchaseInfo = Self.pairs(inner)
    }

    /// `"key" = "value";` pairs; later duplicates are ignored, anything else is skipped.
    static func pairs(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var scanner = Substring(text)
        while let key = nextQuoted(&scanner) {
            let afterKey = scanner.drop { $0 == " " || $0 == "\t" }
            guard afterKey.first == "=" else {
                scanner = afterKey
                continue
            }
            scanner = afterKey.dropFirst()
            guard let value = nextQuoted(&scanner) else { break }
            if result[key] == nil { result[key] = value }
        }
        return result
    }

    private static func nextQuoted(_ scanner: inout Substring) -> String? {
        guard let open = scanner.firstIndex(of: "\"") else { return nil }
        let rest = scanner[scanner.index(after: open)...]
        guard let close = rest.firstIndex(of: "\"") else { return nil }
        scanner = rest[rest.index(after: close)...]
        return String(rest[..<close])
    }
}
