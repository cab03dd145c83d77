import Foundation

/// One raw attribute of an app receipt payload, exactly as stored.
///
/// ```
/// ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }
/// ```
/// `value` usually holds a DER-encoded UTF8String, IA5String or INTEGER; the typed fields of
/// ``AppReceipt`` and ``AppReceiptInAppPurchase`` are read from it. Attributes Apple does not
/// document (6–11, 13–16, 18, 20, 25, 1707, 1709–1710, 1714–1718, 1720, 1722, …) are kept here
/// so nothing in a receipt is lost.
public struct ReceiptAttribute: Hashable, Sendable {
    /// The attribute type (0–21 for the receipt, 1701–1722 for in-app purchases).
    public var type: Int
    /// The attribute version (Apple writes 1, or 2 for the opaque value).
    public var version: Int
    /// The raw content of the `value` OCTET STRING.
    public var value: Data

    public init(type: Int, version: Int, value: Data) {
        self.type = type
        self.version = version
        self.value = value
    }
}
