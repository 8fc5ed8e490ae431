import Foundation
import RestingServerHarness
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The harness's way of starting helper programs (servers, shells, the crash probe) in place of Foundation's
/// `Process`, whose Linux `run()` reads past a heap buffer before swift-corelibs-foundation#5472.
@Suite("Child processes of the test harness")
struct ChildProcessTests {
    @Test("a child inherits its standard streams and no other descriptor of this process")
    func inheritsOnlyStandardStreams() async throws {
        // A descriptor without close-on-exec, which a plain fork and exec would hand down.
        var descriptors: [Int32] = [-1, -1]
        #if canImport(Glibc)
        #expect(Glibc.pipe(&descriptors) == 0)
        #else
        #expect(Darwin.pipe(&descriptors) == 0)
        #endif
        defer { for descriptor in descriptors { close(descriptor) } }
        #expect(fcntl(descriptors[0], F_GETFD) & FD_CLOEXEC == 0)

        let candidates = "0 1 2 \(descriptors[0]) \(descriptors[1])"
        let probe = "for fd in \(candidates); do if [ -e /dev/fd/$fd ]; then echo $fd; fi; done"
        let (status, output) = try await ChildProcess.run("/bin/sh", ["-c", probe])

        #expect(status == 0)
        #expect(String(decoding: output, as: UTF8.self) == "0\n1\n2\n")
    }

    #if os(Linux)
    @Test("a child starts with no signal blocked, whatever the thread that starts it blocks")
    func signalMaskIsEmpty() async throws {
        let blockedInChild: String = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var blocked = sigset_t()
                var previous = sigset_t()
                sigemptyset(&blocked)
                sigaddset(&blocked, SIGTERM)
                pthread_sigmask(SIG_BLOCK, &blocked, &previous)
                defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
                let child = try? ChildProcess("/bin/grep", ["SigBlk", "/proc/self/status"])
                continuation.resume(returning: String(decoding: child?.readToEnd() ?? Data(), as: UTF8.self))
                child?.waitForExit()
            }
        }
        #expect(blockedInChild == "SigBlk:\t0000000000000000\n")
    }
    #endif

    @Test("the exit status is the child's, or 128 plus the signal that ended it")
    func exitStatus() async throws {
        #expect(try await ChildProcess.run("/bin/sh", ["-c", "exit 3"]).status == 3)

        let sleeper = try ChildProcess("/bin/sh", ["-c", "echo started; exec sleep 600"])
        #expect(sleeper.readLine() == "started")
        sleeper.send(SIGKILL)
        #expect(await sleeper.exitStatus() == 128 + SIGKILL)
    }

    @Test("closing standard input ends a child that reads it to its end")
    func closingInputEndsTheChild() async throws {
        let reader = try ChildProcess("/bin/sh", ["-c", "cat; echo done"], pipingInput: true)
        reader.closeInput()
        #expect(reader.readLine() == "done")
        #expect(reader.readLine() == nil)
        #expect(await reader.exitStatus() == 0)
    }

    @Test("a program that does not exist fails to start with a typed error")
    func missingProgram() {
        #expect(throws: ChildProcess.Failure.self) {
            try ChildProcess("/nonexistent/restingkit-no-such-program", [])
        }
    }
}
