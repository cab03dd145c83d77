import AppStoreModels
import Foundation

/// Typed access to receipt attributes by type number; the first attribute of a type wins.
///
/// Values are DER inside the attribute's OCTET STRING. Strings may be UTF8String, IA5String,
/// PrintableString or VisibleString; an empty string means the field is absent.
struct AttributeReader {
    /// One `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`,
    /// its value a slice of the payload.
    struct Field {
        let type: Int
        let version: Int
        let value: ArraySlice<UInt8>
    }

    /// In receipt order. A receipt or a purchase holds a few dozen, so a scan beats hashing.
    let fields: [Field]

    init(_ fields: [Field]) {
        self.fields = fields
    }

    /// The attributes as the model keeps them.
    var attributes: [ReceiptAttribute] {
        fields.map { field in
            ReceiptAttribute(type: field.type, version: field.version, value: field.value.withUnsafeBytes { Data($0) })
        }
    }

    func raw(_ type: Int) -> Data? {
        value(type).map { Data($0) }
    }

    func string(_ type: Int) throws(ReceiptDecodingFailure) -> String? {
        guard let text = try text(type) else { return nil }
        guard let string = String(validating: text, as: UTF8.self) else {
            throw ReceiptDecodingFailure("attribute \(type): invalid UTF-8")
        }
        return string.isEmpty ? nil : string
    }

    func integer(_ type: Int) throws(ReceiptDecodingFailure) -> Int64? {
        guard let (bytes, node) = try node(type) else { return nil }
        guard node.identifier == 0x02, let value = ReceiptIntegerDecoding.int64(bytes[node.content]) else {
            throw ReceiptDecodingFailure("attribute \(type): expected a 64-bit integer")
        }
        return value
    }

    /// A timestamp, read from the string's bytes (no `String` is made unless it is unreadable).
    func date(_ type: Int) throws(ReceiptDecodingFailure) -> Date? {
        guard let text = try text(type), !text.isEmpty else { return nil }
        if let date = ReceiptTimestamp.date(from: text) { return date }
        guard let string = try self.string(type) else { return nil }
        throw ReceiptDecodingFailure("attribute \(type): unreadable date \"\(string.prefix(40))\"")
    }

    /// The content octets of a string attribute: UTF8String, PrintableString, IA5String,
    /// VisibleString; primitive only.
    private func text(_ type: Int) throws(ReceiptDecodingFailure) -> ArraySlice<UInt8>? {
        guard let (bytes, node) = try node(type) else { return nil }
        guard [0x0C, 0x13, 0x16, 0x1A].contains(node.identifier) else {
            throw ReceiptDecodingFailure("attribute \(type): expected a string")
        }
        return bytes[node.content]
    }

    private func value(_ type: Int) -> ArraySlice<UInt8>? {
        fields.first { $0.type == type }?.value
    }

    /// The attribute's value: one ASN.1 element taking all of its bytes.
    private func node(_ type: Int) throws(ReceiptDecodingFailure) -> (ArraySlice<UInt8>, ReceiptTLV)? {
        guard let bytes = value(type) else { return nil }
        do {
            return (bytes, try ReceiptTLV.whole(bytes))
        } catch {
            throw ReceiptDecodingFailure("attribute \(type): value is not ASN.1")
        }
    }
}
