import Foundation
import RestingFuzzTargets

// Built two ways. With `-D FUZZING -sanitize=fuzzer` (make fuzz) libFuzzer drives the target that
// RESTING_FUZZ_TARGET names, and a broken property traps so that libFuzzer saves the input. Otherwise it is a
// plain program that replays files through a target: `RestingFuzz <target> <file>…`.

/// Stops the process so that libFuzzer records the input that broke a property.
func report(_ target: String, _ message: String) -> Never {
    FileHandle.standardError.write(Data("fuzz target \(target): \(message)\n".utf8))
    abort()
}

#if FUZZING
let selected: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["RESTING_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.named(name) else {
        report(name, "unknown; set RESTING_FUZZ_TARGET to one of \(FuzzTarget.all.map(\.name))")
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    selected.run(Data(bytes: bytes, count: count)) { report(selected.name, $0) }
    return 0
}

typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzCallback
) -> CInt

// SwiftPM links an executable's entry point under this name; it hands the command line to libFuzzer's driver.
@_cdecl("RestingFuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { fuzzOne($0, $1) }
}
#else
@main
enum Replay {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        guard let name = arguments.first, let target = FuzzTarget.named(name) else {
            report(
                arguments.first ?? "",
                "usage: RestingFuzz <\(FuzzTarget.all.map(\.name).joined(separator: "|"))> <file>…")
        }
        for path in arguments.dropFirst() {
            guard let input = FileManager.default.contents(atPath: path) else { report(name, "cannot read \(path)") }
            target.run(input) { report(name, "\(path): \($0)") }
        }
    }
}
#endif
