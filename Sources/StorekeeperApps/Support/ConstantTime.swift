import Crypto
import Foundation

/// Secret comparison whose time does not depend on where the inputs differ.
package enum ConstantTime {
    /// Compares the SHA-256 digests of both strings byte by byte without an early exit, so
    /// neither the content nor the length of the secret leaks through timing.
    package static func equals(_ a: String, _ b: String) -> Bool {
        let da = Array(SHA256.hash(data: Data(a.utf8)))
        let db = Array(SHA256.hash(data: Data(b.utf8)))
        var difference: UInt8 = 0
        for index in 0..<da.count { difference |= da[index] ^ db[index] }
        return difference == 0
    }
}
