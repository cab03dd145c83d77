// libFuzzer target for the JWS and certificate parsing path of `SignedDataVerifier`.
//
// The first byte of each input picks what the rest is:
//   even: a compact JWS (or anything else), verified as a notification and as a transaction;
//   odd:  a DER certificate, placed as the leaf of an otherwise well-formed JWS whose
//         intermediate and root come from a fixed test CA, so certificate parsing and chain
//         building see arbitrary bytes.
// `FUZZ_JWS_MODE` (`jws` or `certificate`) makes every input one of the two.
// A crash, a hang or a forged input accepted as valid is a finding.
import AppStoreModels
import AppStoreTestSigning
import AppStoreVerification
import Dispatch
import Foundation
import FuzzerSupport

let fixedNow = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
let authority = try! TestCertificateAuthority.generate(
    notBefore: fixedNow - 365 * 86_400, notAfter: fixedNow + 365 * 86_400
)
let verifier = try! SignedDataVerifier(
    rootCertificates: [authority.rootCertificateDER], bundleId: "com.example", appAppleId: 1234, environment: .sandbox
)
let headerPrefix = #"{"alg":"ES256","x5c":[""#
let headerSuffix = #"","\#(authority.intermediateCertificateDER.base64EncodedString())","\#(authority.rootCertificateDER.base64EncodedString())"]}"#
let payload = Data(#"{"bundleId":"com.example","environment":"Sandbox","signedDate":1767225600000}"#.utf8)

func base64URL(_ data: Data) -> String {
    data.base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// Runs an async verification to completion from libFuzzer's synchronous callback.
func blocking(_ operation: @escaping @Sendable () async -> Bool) -> Bool {
    let semaphore = DispatchSemaphore(value: 0)
    let result = ResultBox()
    Task {
        result.value = await operation()
        semaphore.signal()
    }
    semaphore.wait()
    return result.value
}

/// Carries a result from the task to the waiting thread; the semaphore orders the accesses.
final class ResultBox: @unchecked Sendable {
    var value = false
}

/// `FUZZ_JWS_MODE=certificate` (or `jws`) makes every input one kind, whatever its first byte,
/// so the certificate path can have a run of its own.
let forcedMode: UInt8? =
    switch ProcessInfo.processInfo.environment["FUZZ_JWS_MODE"] {
    case nil: nil
    case "jws": 0
    case "certificate": 1
    case let other?: fatalError("FUZZ_JWS_MODE is jws or certificate, not \(other)")
    }

let callback: FuzzCallback = { bytes, count in
    guard let bytes, count > 0 else { return 0 }
    let mode = forcedMode ?? bytes[0]
    let body = Data(UnsafeBufferPointer(start: bytes + 1, count: count - 1))
    if mode % 2 == 0 {
        let jws = String(decoding: body, as: UTF8.self)
        _ = blocking { await verifier.verifyAndDecodeNotification(jws, now: fixedNow).isValid }
        let accepted = blocking { await verifier.verifyAndDecodeTransaction(jws, now: fixedNow).isValid }
        // Only JWS signed by the fixed CA's leaf can verify; the fuzzer never has its key.
        if accepted { fatalError("forged transaction accepted: \(jws)") }
    } else {
        let header = Data((headerPrefix + body.base64EncodedString() + headerSuffix).utf8)
        let jws = base64URL(header) + "." + base64URL(payload) + "." + base64URL(Data(repeating: 7, count: 64))
        let accepted = blocking { await verifier.verifyAndDecodeTransaction(jws, now: fixedNow).isValid }
        if accepted { fatalError("JWS with a bogus signature accepted") }
    }
    return 0
}

runFuzzer(callback)
