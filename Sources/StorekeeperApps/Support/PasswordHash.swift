import Crypto
import Foundation
import _CryptoExtras

/// A dashboard password's slow hash, kept as self-describing text:
/// `scrypt$<log2 N>$<r>$<p>$<salt, base64>$<key, base64>` (scrypt with N = 2^15, r = 8, p = 1:
/// 32 MiB and tens of milliseconds per guess; a random 16-byte salt per password).
public enum PasswordHash {
    /// Why a password cannot be set.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    package static let logN = 15
    package static let blockSize = 8
    package static let parallelism = 1
    package static let keyLength = 32

    /// Checks a new password: 12 to 1,024 bytes, not all one character.
    public static func check(_ password: String) throws(Refusal) {
        let bytes = password.utf8.count
        guard bytes >= 12 else { throw Refusal(description: "the password must have at least 12 characters") }
        guard bytes <= 1_024 else { throw Refusal(description: "the password must have at most 1024 bytes") }
        guard Set(password).count > 1 else { throw Refusal(description: "the password must not repeat one character") }
    }

    /// The hash of `password` with a fresh salt.
    public static func make(_ password: String) throws -> String {
        let salt = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        let key = try derive(password, salt: salt, logN: logN, blockSize: blockSize, parallelism: parallelism)
        return ["scrypt", "\(logN)", "\(blockSize)", "\(parallelism)", salt.base64EncodedString(), key.base64EncodedString()]
            .joined(separator: "$")
    }

    /// Whether `hash` has this code's form (the parameters it accepts, a salt and a key), so a
    /// password pasted where a hash belongs is caught.
    public static func isWellFormed(_ hash: String) -> Bool {
        parameters(of: hash) != nil
    }

    private static func parameters(of hash: String) -> (logN: Int, blockSize: Int, parallelism: Int, salt: Data, key: Data)? {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let logN = Int(parts[1]), (10...20).contains(logN),
            let blockSize = Int(parts[2]), (1...16).contains(blockSize), let parallelism = Int(parts[3]), (1...4).contains(parallelism),
            let salt = Data(base64Encoded: parts[4]), !salt.isEmpty, let expected = Data(base64Encoded: parts[5]), expected.count == keyLength
        else { return nil }
        return (logN, blockSize, parallelism, salt, expected)
    }

    /// Whether `password` matches `hash` (compared in constant time); `false` for a hash this
    /// code cannot read or parameters outside what it would make.
    public static func verify(_ password: String, against hash: String) -> Bool {
        guard let (logN, blockSize, parallelism, salt, expected) = parameters(of: hash), password.utf8.count <= 1_024,
            let key = try? derive(password, salt: salt, logN: logN, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(key, expected) { difference |= a ^ b }
        return difference == 0
    }

    package static func derive(_ password: String, salt: Data, logN: Int, blockSize: Int, parallelism: Int) throws -> Data {
        let key = try KDF.Scrypt.deriveKey(
            from: Data(password.utf8), salt: salt, outputByteCount: keyLength, rounds: 1 << logN, blockSize: blockSize,
            parallelism: parallelism, maxMemory: 64 << 20)
        return key.withUnsafeBytes { Data($0) }
    }
}
