import React, { useState } from 'react';

function TodoItem({ todo, onToggle }) {
  return (
    <li
      className={todo.done ? 'done' : ''}
      onClick={() => onToggle(todo.id)}
    >
      {todo.title}
    </li>
  );
}

export default function TodoList({ initial }) {
  const [todos, setTodos] = useState(initial);

  const toggle = (id) => {
    setTodos((prev) =>
      prev.map((t) => (t.id === id ? { ...t, done: !t.done } : t))
    );
  };

  return (
    <ul>
      {todos.map((t) => (
        <TodoItem key={t.id} todo={t} onToggle={toggle} />
      ))}
    </ul>
  );
}

export class ErrorBoundary extends React.Component {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    return this.state.failed ? <p>Something broke.</p> : this.props.children;
  }
}
