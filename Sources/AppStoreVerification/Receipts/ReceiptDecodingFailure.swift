/// Why a receipt's bytes could not be read; becomes status 21002 with this reason.
struct ReceiptDecodingFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
