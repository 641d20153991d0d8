//! Operators of the data commands that run inside a pipeline (`lookup`, `outputlookup`,
//! `outputcsv`, `inputlookup`/`inputcsv` with `append=t`, `fieldsummary`). Generating commands
//! run before the pipeline ([`crate::generate`]); found later, they are an error.

use super::limits::Limits;
use super::{fieldsummary, inputlookup, lookup, outputlookup, Op};
use crate::error::SearchError;
use lode_spl::ast::data::DataCommand;

/// The operator of `d`.
pub(super) fn build(d: &DataCommand, limits: Limits) -> Result<Box<dyn Op>, SearchError> {
    Ok(match d {
        DataCommand::Lookup(l) => Box::new(lookup::LookupOp::new(l)?),
        DataCommand::OutputLookup(o) => {
            Box::new(outputlookup::OutputLookupOp::new(o, limits, false)?)
        }
        DataCommand::OutputCsv(o) => Box::new(outputlookup::OutputLookupOp::new(o, limits, true)?),
        DataCommand::InputLookup(il) if il.append => {
            Box::new(inputlookup::InputLookupOp::new(il, false)?)
        }
        DataCommand::InputCsv(il) if il.append => {
            Box::new(inputlookup::InputLookupOp::new(il, true)?)
        }
        DataCommand::FieldSummary { maxvals, fields } => {
            Box::new(fieldsummary::FieldSummaryOp::new(*maxvals, fields, limits))
        }
        DataCommand::Collect(_) => return Err(SearchError::User(
            "Error in 'collect' command: Lode runs collect only as the last command of a search."
                .into(),
        )),
        other => {
            return Err(SearchError::User(format!(
                "Error in '{}' command: This command must be the first command of a search.",
                other.name()
            )))
        }
    })
}
