import type { ReactNode } from 'react';
import {
  Button,
  Dialog,
  DialogTrigger,
  Heading,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Modal,
  ModalOverlay,
  Popover,
  Select,
  SelectValue,
  Text,
  TextArea,
  TextField,
} from 'react-aria-components';

/**
 * The console's controls from React Aria Components (docs/adr/0029-web-console.md): labelled, keyboard-operable,
 * announced and focus-managed by the library; styled by styles.css through class names only (no inline style:
 * the CSP allows none but React Aria's own two stylesheets, by hash). Buttons are RAC's `Button` itself, imported
 * from 'react-aria-components' where they are used. A button in progress says so in its label ("Creating key…").
 * RAC's `isPending` is not used: it announces the label through an element that points at the button's id for
 * seven seconds, and a button gone by then (sign-in done, signed out) leaves a dangling reference axe reports.
 */

/** A labelled text input (or a `multiline` text area), its hint tied to it as its description. */
export function TextInput({
  label,
  hint,
  value,
  onChange,
  type = 'text',
  multiline = false,
  rows = 2,
  isRequired,
  autoComplete,
  placeholder,
  className = 'field',
}: {
  label: string;
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'password' | 'url' | 'search';
  multiline?: boolean;
  rows?: number;
  isRequired?: boolean;
  autoComplete?: string;
  placeholder?: string;
  className?: string;
}) {
  return (
    <TextField
      className={className}
      value={value}
      onChange={onChange}
      type={type}
      isRequired={isRequired}
      autoComplete={autoComplete}
    >
      <Label>{label}</Label>
      {multiline ? <TextArea rows={rows} placeholder={placeholder} /> : <Input placeholder={placeholder} />}
      {hint && (
        <Text slot="description" className="hint">
          {hint}
        </Text>
      )}
    </TextField>
  );
}

/** A labelled choice of a few values: a button that opens a list box (arrow keys, type-ahead, Escape). */
export function SelectInput<K extends string>({
  label,
  hint,
  value,
  onChange,
  options,
}: {
  label: string;
  hint?: string;
  value: K;
  onChange: (value: K) => void;
  options: readonly { id: K; label: string }[];
}) {
  return (
    <Select className="field" selectedKey={value} onSelectionChange={(key) => onChange(key as K)}>
      <Label>{label}</Label>
      <Button className="secondary select-button">
        <SelectValue />
        <span aria-hidden="true"> ▾</span>
      </Button>
      {hint && (
        <Text slot="description" className="hint">
          {hint}
        </Text>
      )}
      <Popover className="popover">
        <ListBox className="listbox">
          {options.map((option) => (
            <ListBoxItem key={option.id} id={option.id} className="option">
              {option.label}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

/** A modal dialog (focus kept inside, Escape closes, focus back to what opened it), open while `isOpen`. */
export function ModalDialog({
  title,
  isOpen,
  onOpenChange,
  role = 'dialog',
  children,
}: {
  title: string;
  isOpen?: boolean;
  onOpenChange?: (isOpen: boolean) => void;
  role?: 'dialog' | 'alertdialog';
  children: (close: () => void) => ReactNode;
}) {
  return (
    <ModalOverlay className="modal-overlay" isDismissable isOpen={isOpen} onOpenChange={onOpenChange}>
      <Modal className="modal">
        <Dialog className="dialog" role={role}>
          {({ close }) => (
            <>
              <Heading slot="title">{title}</Heading>
              {children(close)}
            </>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

/**
 * A destructive action (terminate, delete, revoke) behind a confirmation dialog: the button opens it, Cancel has
 * the focus, the confirming button does it. Shows `pending` on the button while the action runs.
 */
export function ConfirmButton({
  label,
  accessibleLabel,
  title,
  question,
  confirmLabel = label,
  onConfirm,
  pending = false,
  pendingLabel = `${label}…`,
  small = false,
}: {
  label: string;
  /** The button's name when `label` alone is ambiguous (one per row of a table). */
  accessibleLabel?: string;
  title: string;
  question: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  pending?: boolean;
  pendingLabel?: string;
  small?: boolean;
}) {
  return (
    <DialogTrigger>
      <Button className={small ? 'danger small' : 'danger'} isDisabled={pending} aria-label={accessibleLabel}>
        {pending ? pendingLabel : label}
      </Button>
      <ModalDialog title={title} role="alertdialog">
        {(close) => (
          <>
            <p>{question}</p>
            <div className="row">
              <Button className="secondary" autoFocus onPress={close}>
                Cancel
              </Button>
              <Button
                className="danger"
                onPress={() => {
                  close();
                  onConfirm();
                }}
              >
                {confirmLabel}
              </Button>
            </div>
          </>
        )}
      </ModalDialog>
    </DialogTrigger>
  );
}
