"""C, C++ and C# code the parser reads only after macros or directives are blanked."""

from __future__ import annotations

from codecompass.indexing.blanking import blanked_text, grammar_code, without_attribute_macros
from codecompass.indexing.parse import parse, parse_file


def _symbols(source: str, language: str = "cpp") -> list[tuple[str, str, int, int]]:
    return [
        (s.qualified_name, s.kind, s.start_line, s.end_line)
        for s in parse(source, language).symbols
    ]


# The shape of fmt's format.h: before, `size_padding` swallowed the rest of the file and
# `format_dragon` was read as its method.
FORMAT_H = """\
namespace detail {
struct size_padding {
  unsigned size;

  FMT_CONSTEXPR size_padding(int num_digits, unsigned prefix)
      : size(prefix + num_digits) {
    if FMT_CONSTEXPR20 (prefix > 0) size += 1;
  }
};

template <typename T, FMT_ENABLE_IF(std::is_integral<T>::value)>
FMT_CONSTEXPR auto count_digits(T n) -> int {
  return n < 10 ? 1 : 1 + count_digits(n / 10);
}

static FMT_CONSTEXPR20 inline void format_dragon(int value, int flags) {
  count_digits(value);
}

class FMT_SO_VISIBILITY("default") format_error : public std::runtime_error {
 public:
  FMT_API explicit format_error(const char* message) : runtime_error(message) {}
};
}  // namespace detail
"""


def test_attribute_macros_do_not_break_nesting() -> None:
    assert _symbols(FORMAT_H) == [
        ("detail.size_padding", "struct", 2, 9),
        ("detail.size_padding.size_padding", "method", 5, 8),
        ("detail.count_digits", "function", 11, 14),
        ("detail.format_dragon", "function", 16, 18),
        ("detail.format_error", "class", 20, 23),
        ("detail.format_error.format_error", "method", 22, 22),
    ]
    calls = {(r.name, r.scope) for r in parse(FORMAT_H, "cpp").references if r.kind == "call"}
    assert ("count_digits", "detail.format_dragon") in calls


# leveldb's shape: an export macro between `class` and the name, thread-safety
# annotations after a parameter list and after a member.
MUTEX_H = """\
class LEVELDB_EXPORT Mutex {
 public:
  Mutex() = default;
  void Lock() EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() UNLOCK_FUNCTION() { mu_.unlock(); }
  void AssertHeld() ASSERT_EXCLUSIVE_LOCK() {}

 private:
  int waiters_ GUARDED_BY(mu_);
  std::mutex mu_;
};
"""


def test_export_and_thread_annotations() -> None:
    assert _symbols(MUTEX_H) == [
        ("Mutex", "class", 1, 11),
        ("Mutex.Mutex", "method", 3, 3),
        ("Mutex.Lock", "method", 4, 4),
        ("Mutex.Unlock", "method", 5, 5),
        ("Mutex.AssertHeld", "method", 6, 6),
    ]


def test_export_macro_in_c() -> None:
    source = """\
CURL_EXTERN CURLcode curl_easy_perform(CURL *curl);
CURL_EXTERN CURLcode curl_easy_perform(CURL *curl)
{
  return run(curl);
}
"""
    assert _symbols(source, "c") == [("curl_easy_perform", "function", 2, 5)]


def test_signatures_leave_the_macros_out() -> None:
    source = "struct S {\n  static FMT_CONSTEXPR20 void grow(int n) { n++; }\n};\n"
    (grow,) = [s for s in parse(source, "cpp").symbols if s.name == "grow"]
    assert grow.signature == "static void grow(int n)"


def test_statement_macros_keep_their_calls() -> None:
    source = """\
void body(unsigned *a)
{
  MD5_STEP(MD5_F, a, MD5_GET(1), 7)
  MD5_STEP(MD5_F, a, MD5_GET(2), 12)
  if(!a) DEBUGF(log_failure(a));
  return CHECKED(finish(a));
}
BOOL WINAPI DllMain(HINSTANCE instance, DWORD reason, LPVOID reserved)
{
  return TRUE;
}
"""
    parsed = parse(source, "c")
    assert [(s.qualified_name, s.start_line) for s in parsed.symbols] == [
        ("body", 1),
        ("DllMain", 8),
    ]
    calls = {r.name for r in parsed.references if r.kind == "call"}
    assert {"MD5_STEP", "MD5_GET", "DEBUGF", "log_failure", "CHECKED", "finish"} <= calls


def test_blanking_keeps_offsets_and_leaves_text_alone() -> None:
    source = (
        b'#define FMT_API __attribute__((visibility("default")))\n'
        b"// FMT_API void commented(int x);\n"
        b'const char* s = "FMT_API void quoted(int x)";\n'
        b"FMT_API void\n"
        b"  split(int x);\n"
        b"template <typename T,\n"
        b"          FMT_ENABLE_IF(is_integral<T>(\n"
        b"              0))>\n"
        b"int f(T);\n"
    )
    blanked = without_attribute_macros(source)
    assert len(blanked) == len(source)
    lines = source.split(b"\n")
    assert blanked.split(b"\n") == [
        *lines[:3],
        b"        void",
        b"  split(int x);",
        b"template <typename T ",
        b" " * len(lines[6]),
        b" " * (len(lines[7]) - 1) + b">",
        b"int f(T);",
        b"",
    ]


def test_an_array_initialized_by_a_macro() -> None:
    """spdlog's `static const char *short_level_names[] SPDLOG_SHORT_LEVEL_NAMES;`: with the
    macro left in, its namespace closed early in the parse, and `spdlog_ex::what` after it
    was read as `spdlog.level.spdlog_ex.what`."""
    source = b"static const char *names[] LEVEL_NAMES;\nint sizes[] = SIZES;\n"
    assert without_attribute_macros(source) == (
        b"static const char *names[]            ;\nint sizes[] = SIZES;\n"
    )


def test_an_all_caps_type_stays() -> None:
    source = b"DWORD count;\nstatic UINT32 total = 0;\nreturn (int) MAX_VALUE;\n"
    assert without_attribute_macros(source) == source


# nlohmann/json's shape: namespace macros on lines of their own, an access label that is
# a macro, and a deprecation macro with arguments on the line before a declaration.
JSON_HPP = """\
NLOHMANN_JSON_NAMESPACE_BEGIN

class byte_container : public BinaryType
{
  public:
    JSON_HEDLEY_DEPRECATED_FOR(3.11.0, set_subtype)
    void set(int subtype) noexcept
    {
        m_subtype = subtype;
    }

  JSON_PRIVATE_UNLESS_TESTED:
    int m_subtype = 0;

  public Q_SLOTS:
    void clear() noexcept
    {
        m_subtype = 0;
    }
};

NLOHMANN_JSON_NAMESPACE_END
"""


def test_macros_on_lines_of_their_own() -> None:
    assert _symbols(JSON_HPP) == [
        ("byte_container", "class", 3, 20),
        ("byte_container.set", "method", 7, 10),
        ("byte_container.clear", "method", 16, 19),
    ]


def test_a_macro_call_holding_a_call_is_code() -> None:
    source = b"UNITTEST_BEGIN(setup(&easy))\n  int x = 1;\nCHECK_FLAGS(1)\n  int y = 2;\n"
    assert without_attribute_macros(source) == (
        b"UNITTEST_BEGIN(setup(&easy))\n  int x = 1;\n              \n  int y = 2;\n"
    )


# Serilog's shape: conditional directives inside declarations, where C# libraries build
# for several frameworks. Before, the interface was lost, a `new` expression was read as
# a method, and `Sink`'s methods had no class.
SERILOG_CS = """\
namespace Serilog;

public interface ILogger
{
    /// <summary>Create a logger that enriches log events.</summary>
#if FEATURE_DEFAULT_INTERFACE
    [CustomDefaultMethodImplementation]
#endif
    ILogger ForContext(ILogEventEnricher enricher)
#if FEATURE_DEFAULT_INTERFACE
        => new LoggerConfiguration()
            .CreateLogger()
            .ForContext(enricher)
#endif
    ;

    /// <summary>Write an event to the log.</summary>
    void Write(LogEvent logEvent)
#if FEATURE_DEFAULT_INTERFACE
    {
        Dispatch(logEvent);
    }
#else
        ;
#endif
}

sealed class Sink : ILogEventSink, IDisposable
#if FEATURE_ASYNCDISPOSABLE
    , IAsyncDisposable
#endif
{
    public void Emit(LogEvent logEvent) => Send(logEvent);
}
"""


def test_conditional_directives_inside_csharp_declarations() -> None:
    symbols = parse(SERILOG_CS, "csharp").symbols
    assert [(s.qualified_name, s.kind, s.start_line, s.end_line) for s in symbols] == [
        ("ILogger", "interface", 3, 26),
        ("ILogger.ForContext", "method", 5, 15),
        ("ILogger.Write", "method", 17, 22),
        ("Sink", "class", 28, 34),
        ("Sink.Emit", "method", 33, 33),
    ]
    for_context = symbols[1]
    assert for_context.signature == "ILogger ForContext(ILogEventEnricher enricher)"
    assert for_context.doc == "Create a logger that enriches log events."


def test_csharp_keeps_the_first_branch() -> None:
    source = (
        b"#if NET6\nint F() {\n#elif NET5\nint F() { x();\n#else\nint G() {\n#endif\n"
        b"  return 1;\n}\n#if 0\nnot code\n#else\nint H() => 2;\n#endif\n"
    )
    assert blanked_text("csharp", source).split(b"\n") == [
        b" " * 8,
        b"int F() {",
        b" " * 10,
        b" " * 14,
        b" " * 5,
        b" " * 9,
        b" " * 6,
        b"  return 1;",
        b"}",
        b" " * 5,
        b" " * 8,
        b" " * 5,
        b"int H() => 2;",
        b" " * 6,
        b"",
    ]


def test_objective_c_header_between_nullability_macros() -> None:
    """AFNetworking's headers open with `NS_ASSUME_NONNULL_BEGIN`: before, tree-sitter-objc
    read none of their classes."""
    source = """\
#import <Foundation/Foundation.h>

NS_ASSUME_NONNULL_BEGIN

/** Evaluates server trust against pinned certificates. */
@interface AFSecurityPolicy : NSObject <NSSecureCoding, NSCopying>

@property (readonly, nonatomic, assign) AFSSLPinningMode SSLPinningMode;

+ (instancetype)defaultPolicy;

- (BOOL)evaluateServerTrust:(SecTrustRef)serverTrust
                  forDomain:(nullable NSString *)domain;

@end

NS_ASSUME_NONNULL_END
"""
    assert _symbols(source, "objc") == [("AFSecurityPolicy", "class", 5, 15)]


def test_objective_c_method_marked_after_its_parameters() -> None:
    """AFURLSessionManager.m, AFNetworking's core file, had 11 symbols and no class: one
    method's availability macro threw the whole `@implementation` off. Now 89."""
    source = """\
@implementation AFURLSessionManager

- (void)URLSession:(NSURLSession *)session
              task:(NSURLSessionTask *)task
didFinishCollectingMetrics:(NSURLSessionTaskMetrics *)metrics AF_API_AVAILABLE(ios(10)) {
    self.metrics = metrics;
}

- (NSArray *)dataTasks {
    return [self tasksForKeyPath:NSStringFromSelector(_cmd)];
}

@end
"""
    assert _symbols(source, "objc") == [
        ("AFURLSessionManager.URLSession", "method", 3, 7),
        ("AFURLSessionManager.dataTasks", "method", 9, 11),
    ]


# tmux's shape: a lowercase attribute macro between a declaration's type and its name.
# Unblanked, 7 functions were named `printflike` and one parse error covered tmux.h's
# lines 2627-4270.
PRINTFLIKE_C = """\
#define printflike(a, b) __attribute__ ((format (printf, a, b)))

void printflike(1, 2) log_debug(const char *, ...);

static void printflike(1, 0)
log_vwrite(const char *msg, va_list ap)
{
	(void)msg;
}

void
log_debug(const char *msg, ...)
{
	log_vwrite(msg, NULL);
}
"""


def test_a_lowercase_attribute_macro_before_the_name() -> None:
    assert [s for s in _symbols(PRINTFLIKE_C, "c") if s[1] == "function"] == [
        ("printflike", "function", 1, 1),  # the macro's own definition
        ("log_vwrite", "function", 5, 9),
        ("log_debug", "function", 11, 15),
    ]
    calls = {(r.name, r.scope) for r in parse(PRINTFLIKE_C, "c").references if r.kind == "call"}
    assert calls == {("log_vwrite", "log_debug")}


GRAMMAR_Y = """\
%{
#include "tmux.h"
static int yylex(void);
%}

%union { char *token; }
%token <token> TOKEN

%%

lines : line { cmd_parse_new(); }
      ;

%%

static int
yylex(void)
{
	return (0);
}

struct cmd_parse_result *
cmd_parse_from_string(const char *s)
{
	return (cmd_parse_run(s));
}
"""


def test_a_yacc_file_is_read_as_its_c_sections() -> None:
    """tmux's command parser, `cmd-parse.y`, had no symbol: the prologue and the code
    after the second `%%` are C, at the file's own lines."""
    code = grammar_code(GRAMMAR_Y)
    assert len(code.split("\n")) == len(GRAMMAR_Y.split("\n"))
    assert "%union" not in code and "cmd_parse_new" not in code
    source = parse_file("cmd-parse.y", GRAMMAR_Y)
    assert source.parsed.language == "c"
    assert [(s.name, s.start_line, s.end_line) for s in source.parsed.symbols] == [
        ("yylex", 16, 20),
        ("cmd_parse_from_string", 22, 26),
    ]
    assert [(r.name, r.line) for r in source.parsed.references if r.kind == "call"] == [
        ("cmd_parse_run", 25)
    ]
