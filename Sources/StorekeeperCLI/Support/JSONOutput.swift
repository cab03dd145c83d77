import Foundation

/// Prints values as one JSON document on standard output, keys sorted so output is stable.
enum JSONOutput {
    static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    static func print<T: Encodable>(_ value: T, pretty: Bool = false) throws(CLIFailure) {
        do {
            let data = try encoder(pretty: pretty).encode(value)
            Console.out(data)
            Console.out(Data("\n".utf8))
        } catch {
            throw CLIFailure(exitCode: 1, message: "cannot encode the result: \(error)")
        }
    }
}

extension JSONOutput {
    /// Prints a `JSONSerialization` object tree.
    static func printObject(_ object: Any, pretty: Bool = false) throws(CLIFailure) {
        do {
            var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
            if pretty { options.insert(.prettyPrinted) }
            let data = try JSONSerialization.data(withJSONObject: object, options: options)
            Console.out(data)
            Console.out(Data("\n".utf8))
        } catch {
            throw CLIFailure(exitCode: 1, message: "cannot encode the result: \(error)")
        }
    }
}
