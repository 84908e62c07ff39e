// HostTry.cpp - try / except / else / finally and raise in host code.
//
// Host code raises errors as located CompileErrors (a failed builtin, an
// assert, a kernel launch that faults or is out of bounds, `raise`). A try
// statement catches them as Python exceptions: the type is the message's
// "Type: " prefix (`raise ValueError("x")` gives "ValueError: x"), or
// AssertionError for a failed assert, or for tile's own errors the type
// Python gives the same failure (IndexError, KeyError, ZeroDivisionError,
// AttributeError), else RuntimeError;
// `except E as e` binds e to the message after the prefix (Python's str(e)).
// Interrupts, timeouts and runaway recursion end the run: no handler sees
// them, so `except Exception: pass` inside a loop cannot make it unstoppable.
#include "host/Evaluator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace tile::host {

using namespace ast;

namespace {

bool uncatchable(const CompileError &e) {
  return e.uncatchable || e.msg == "interrupted" || e.msg.rfind("timed out after", 0) == 0 ||
         e.msg.rfind("maximum host call depth", 0) == 0;
}

/// "ValueError: x" -> ("ValueError", "x"); no prefix -> ("RuntimeError", msg).
std::pair<std::string, std::string> exceptionParts(const std::string &msg) {
  if (msg.rfind("assertion failed", 0) == 0)
    return {"AssertionError", msg.size() > 18 ? msg.substr(18) : std::string()};
  size_t n = 0;
  while (n < msg.size() && (std::isalnum(static_cast<unsigned char>(msg[n])) || msg[n] == '_'))
    ++n;
  std::string head = msg.substr(0, n);
  bool named = n > 0 && std::isupper(static_cast<unsigned char>(head[0])) &&
               (head.ends_with("Error") || head.ends_with("Exception") || head.ends_with("Interrupt"));
  if (named && n == msg.size())
    return {head, ""};
  if (named && msg.compare(n, 2, ": ") == 0)
    return {head, msg.substr(n + 2)};
  // tile's own errors, typed as Python types the same failures
  auto has = [&](const char *part) { return msg.find(part) != std::string::npos; };
  if (has("index out of range"))
    return {"IndexError", msg};
  if (msg.rfind("key ", 0) == 0 && has(" not found in dict"))
    return {"KeyError", msg};
  if (has("division by zero") || has("modulo by zero"))
    return {"ZeroDivisionError", msg};
  if (has(" has no attribute "))
    return {"AttributeError", msg};
  return {"RuntimeError", msg};
}

/// Whether an `except name` clause catches an exception of type `type`
/// (Python's hierarchy for the types host code raises).
bool catches(const std::string &name, const std::string &type) {
  if (name == type || name == "Exception" || name == "BaseException")
    return true;
  if (name == "LookupError")
    return type == "KeyError" || type == "IndexError";
  if (name == "ArithmeticError")
    return type == "ZeroDivisionError" || type == "OverflowError";
  return false;
}

/// The exception class names an except clause's expression spells:
/// ValueError, builtins.ValueError, (KeyError, IndexError).
void clauseNames(const Expr &e, std::vector<std::string> &out) {
  if (e.kind == ExprKind::Name)
    out.push_back(static_cast<const NameExpr &>(e).id);
  else if (e.kind == ExprKind::Attribute)
    out.push_back(static_cast<const AttributeExpr &>(e).attr);
  else if (e.kind == ExprKind::Tuple)
    for (const ExprPtr &x : static_cast<const TupleExpr &>(e).elts)
      clauseNames(*x, out);
  else
    fail(e.loc, "an 'except' clause names exception classes (ValueError, (KeyError, IndexError), ...)");
}

} // namespace

Evaluator::Flow Evaluator::runFinally(const TryStmt &s, Scope &scope, Value &ret, Flow inner) {
  if (s.finalbody.empty())
    return inner;
  Value finRet;
  Flow f = execBlock(s.finalbody, scope, finRet);
  if (f == Flow::Normal)
    return inner;
  if (f == Flow::Return)
    ret = finRet;
  return f;   // a return / break / continue in finally overrides the try's
}

/// The first handler of s that catches an exception of `type` (null: none).
const ExceptHandler *Evaluator::findHandler(const TryStmt &s, const std::string &type, Scope &scope) {
  for (const ExceptHandler &h : s.handlers) {
    if (!h.type)
      return &h;
    eval(*h.type, scope);   // an undefined name is an error, as in Python
    std::vector<std::string> names;
    clauseNames(*h.type, names);
    if (std::any_of(names.begin(), names.end(), [&](const std::string &n) { return catches(n, type); }))
      return &h;
  }
  return nullptr;
}

Evaluator::Flow Evaluator::execTry(const TryStmt &s, Scope &scope, Value &ret) {
  // Runs step, then finally, once however step ends (a catchable error
  // goes on after it, unless finally's own return / break wins, as in Python).
  auto thenFinally = [&](auto step) -> Flow {
    Flow f = Flow::Normal;
    try {
      f = step();
    } catch (const CompileError &e) {
      if (uncatchable(e))
        throw;
      if (Flow fin = runFinally(s, scope, ret, Flow::Normal); fin != Flow::Normal)
        return fin;
      throw;
    }
    return runFinally(s, scope, ret, f);
  };
  std::optional<CompileError> caught;
  Flow f = Flow::Normal;
  try {
    f = execBlock(s.body, scope, ret);
  } catch (const CompileError &e) {
    if (uncatchable(e))
      throw;
    caught = e;
  }
  if (!caught)
    return thenFinally([&] { return f == Flow::Normal ? execBlock(s.orelse, scope, ret) : f; });
  return thenFinally([&] {
    auto [type, message] = exceptionParts(caught->msg);
    const ExceptHandler *handler = findHandler(s, type, scope);
    if (!handler)
      throw *caught;
    if (!handler->name.empty())
      assignTarget(NameExpr(handler->loc, handler->name), Value(message), scope);
    handling_.push_back(*caught);
    struct Pop {
      std::vector<CompileError> &v;
      ~Pop() { v.pop_back(); }
    } pop{handling_};
    return execBlock(handler->body, scope, ret);
  });
}

void Evaluator::execRaise(const RaiseStmt &s, Scope &scope) {
  if (!s.exc) {
    if (!handling_.empty())
      throw handling_.back();
    fail(s.loc, "RuntimeError: No active exception to reraise");
  }
  Value exc = eval(*s.exc, scope);
  if (!exc.is<std::string>() && s.exc->kind == ExprKind::Name)   // raise ValueError
    exc = static_cast<const NameExpr &>(*s.exc).id;
  std::string msg = exc.is<std::string>() ? exc.as<std::string>() : str(exc);
  // `raise e` in a handler re-raises the exception e was bound to
  for (auto it = handling_.rbegin(); it != handling_.rend(); ++it)
    if (exceptionParts(it->msg).second == msg && s.exc->kind == ExprKind::Name)
      throw *it;
  fail(s.loc, msg);
}

} // namespace tile::host
