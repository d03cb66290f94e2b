//! Parser: types (`int`, `string[n]`, `rec(...)`, `ptr T`, `cap ...`, `[ranges] T`, names).

use super::{cap_result_name, PResult, Parser};
use crate::syntax::ast::*;
use crate::syntax::token::{Kw, Punct, TokKind};

impl<'a, 'd> Parser<'a, 'd> {
    // ───────────── types ─────────────

    /// type = "bool" | "int" | "char" | "real" | "double" | "file" | "string" [ "[" bound "]" ]
    ///      | "enum" "(" ID { "," ID } ")" | ( "rec" | "union" ) "(" fields ")"
    ///      | "ptr" ( "any" | type ) | "cap" cap_target | "[" ranges "]" type | qual_name
    ///      | "sem" | "op" signature                      (in `new(...)` only)
    pub(super) fn type_(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.type_inner();
        self.leave();
        r
    }

    pub(super) fn type_inner(&mut self) -> PResult<Type> {
        let lo = self.span();
        let kind = match self.kind().clone() {
            TokKind::Kw(k) => match k {
                Kw::Bool | Kw::Int | Kw::Char | Kw::Real | Kw::Double | Kw::File => {
                    self.bump();
                    match k {
                        Kw::Bool => TypeKind::Bool,
                        Kw::Int => TypeKind::Int,
                        Kw::Char => TypeKind::Char,
                        Kw::Real => TypeKind::Real,
                        Kw::Double => TypeKind::Double,
                        _ => TypeKind::File,
                    }
                }
                Kw::String => {
                    self.bump();
                    if self.eat(Punct::LBracket) {
                        let b = self.bound()?;
                        self.expect(Punct::RBracket)?;
                        TypeKind::String(Some(b))
                    } else {
                        TypeKind::String(None)
                    }
                }
                Kw::Enum => {
                    self.bump();
                    self.expect(Punct::LParen)?;
                    TypeKind::Enum(self.ident_list(Punct::RParen)?)
                }
                Kw::Rec | Kw::Union => {
                    if k == Kw::Union {
                        // MPD 1.0.1 has no overlaid storage: a union is a record.
                        self.diags.warning(self.span(), "`union' treated as `rec'");
                    }
                    self.bump();
                    TypeKind::Rec(self.fields()?)
                }
                Kw::Ptr => {
                    self.bump();
                    if self.eat_kw(Kw::Any) {
                        TypeKind::PtrAny
                    } else {
                        TypeKind::Ptr(Box::new(self.type_()?))
                    }
                }
                Kw::Cap => {
                    self.bump();
                    TypeKind::Cap(self.cap_target()?)
                }
                // types only in `new(...)`: elsewhere MPD's grammar has no
                // `sem` or `op` type (a formal `op (int x) c` is a parse
                // error there; `cap (int x) c` is the capability)
                Kw::Sem | Kw::Op if !self.in_new => return Err(self.unexpected("a type")),
                Kw::Sem => {
                    self.bump();
                    TypeKind::Sem
                }
                Kw::Op => {
                    self.bump();
                    TypeKind::Op(Box::new(self.signature(false)?))
                }
                _ => return Err(self.unexpected("a type")),
            },
            TokKind::Punct(Punct::LBracket) => {
                let ranges = self.ranges()?;
                let elem = Box::new(self.type_()?);
                TypeKind::Array { ranges, elem }
            }
            TokKind::Ident(_) => TypeKind::Named(self.qual_name()?),
            _ => return Err(self.unexpected("a type")),
        };
        Ok(Type::new(kind, lo.to(self.prev_span())))
    }

    /// cap_target = "vm" | "sem" | "(" params ")" [ "returns" ... ] [ restriction ] | qual_name
    pub(super) fn cap_target(&mut self) -> PResult<CapTarget> {
        if self.eat_kw(Kw::Vm) {
            return Ok(CapTarget::Vm);
        }
        if self.eat_kw(Kw::Sem) {
            return Ok(CapTarget::Sem);
        }
        if self.at(Punct::LParen) {
            return Ok(CapTarget::Sig(Box::new(self.signature(false)?)));
        }
        Ok(CapTarget::Named(self.qual_name()?))
    }

    /// fields = "(" field { ( ";" | newline ) field } ")"    field = type param_name { "," param_name }
    pub(super) fn fields(&mut self) -> PResult<Vec<Field>> {
        self.expect(Punct::LParen)?;
        let mut out = Vec::new();
        loop {
            if self.at(Punct::RParen) {
                break;
            }
            let lo = self.span();
            let ty = self.type_()?;
            if !self.at_ident() {
                let what = match cap_result_name(&ty) {
                    Some(r) => format!("a field name (`{r}` names the result: `cap (...) returns <type> r {r}`)"),
                    None => "a field name".to_string(),
                };
                return Err(self.unexpected(&what));
            }
            let first = self.param_name()?;
            // a comma adds a name of this type; groups are separated by ";"
            // or a line break (MPD 1.0.1: `rec(int a, real b)` is a parse error)
            let mut names = vec![first];
            while self.eat(Punct::Comma) {
                if !self.at_ident() {
                    return Err(self.unexpected("a field name (a new field type follows ';' or a line break)"));
                }
                names.push(self.param_name()?);
            }
            out.push(Field { ty, names, span: lo.to(self.prev_span()) });
            if !(self.eat(Punct::Semi) || self.tok().nl_before) {
                break;
            }
        }
        self.expect(Punct::RParen)?;
        Ok(out)
    }

    /// qual_name = ID [ "." ID ]
    pub(super) fn qual_name(&mut self) -> PResult<QualName> {
        let first = self.ident()?;
        let mut parts = vec![first];
        if self.at(Punct::Dot) && matches!(self.nth(1), TokKind::Ident(_)) {
            self.bump();
            parts.push(self.ident()?);
        }
        let span = parts[0].span.to(parts[parts.len() - 1].span);
        Ok(QualName { parts, span })
    }
}
